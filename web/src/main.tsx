/** Entry point: Mantine's theme and styles, notifications, the session, the app. */
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './app.css';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { SessionProvider } from './auth/session.js';
import { cssVariablesResolver, theme } from './theme.js';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      {/* Below the fixed header (app.css), never over it. */}
      <Notifications position="top-right" />
      <SessionProvider>
        <App />
      </SessionProvider>
    </MantineProvider>
  </StrictMode>,
);
