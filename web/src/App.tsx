/**
 * The app: first-run setup while no account exists, the login page while nobody is logged in, and
 * the pages of the registry (each behind its permissions) once someone is.
 */
import { Alert, Center, Container, Loader } from '@mantine/core';
import { Suspense, type ReactNode } from 'react';
import { RateLimitError } from '@svc/sdk';
import { Redirect, Route, Switch } from 'wouter';
import { describeError } from './api/describe-error.js';
import { holdsAny } from './auth/permissions.js';
import { useSession } from './auth/session.js';
import { RateLimitNotice } from './components/RateLimitNotice.js';
import { AppLayout } from './layout/AppLayout.js';
import { Forbidden } from './pages/Forbidden.js';
import { HomePage } from './pages/HomePage.js';
import { LoginPage } from './pages/LoginPage.js';
import { NotFound } from './pages/NotFound.js';
import { pages } from './pages/registry.js';
import { SetupPage } from './pages/SetupPage.js';
import { usePageTitle } from './layout/use-page-title.js';

/** The pages with a route of their own (`/` is HomePage's). */
const routedPages = pages.filter((page) => page.path !== '/');

/** Gives the page its document title. */
function Titled({ title, children }: { title: string; children: ReactNode }) {
  usePageTitle(title);
  return children;
}

/** Shown while a page's code loads (each page is its own chunk). */
function PageLoading() {
  return (
    <Center py="xl">
      <Loader aria-label="Loading the page" />
    </Center>
  );
}

export function App() {
  const { state } = useSession();
  switch (state.phase) {
    case 'loading':
      return (
        <Center h="100vh">
          <Loader aria-label="Loading" />
        </Center>
      );
    case 'unreachable':
      return (
        <Container size="sm" py="xl">
          {state.error instanceof RateLimitError ? (
            <RateLimitNotice error={state.error} />
          ) : (
            <Alert color="red" title="The server cannot be reached" role="alert">
              {describeError(state.error)}
            </Alert>
          )}
        </Container>
      );
    case 'setup':
      return (
        <Switch>
          <Route path="/setup">
            <SetupPage minLength={state.setup.password_min_length} />
          </Route>
          <Route>
            <Redirect to="/setup" replace />
          </Route>
        </Switch>
      );
    case 'anonymous':
      return (
        <Switch>
          <Route path="/login">
            <LoginPage />
          </Route>
          <Route>
            <Redirect to="/login" replace />
          </Route>
        </Switch>
      );
    case 'ready': {
      const me = state.me;
      return (
        <AppLayout>
          <Suspense fallback={<PageLoading />}>
          <Switch>
            <Route path="/setup">
              <Redirect to="/" replace />
            </Route>
            <Route path="/login">
              <Redirect to="/" replace />
            </Route>
            {routedPages.map((page) => (
              <Route key={page.path} path={page.path}>
                <Titled title={page.label}>{holdsAny(me.permissions, page.anyOf) ? <page.component /> : <Forbidden page={page} />}</Titled>
              </Route>
            ))}
            {/* `/` is the model launch page for those who may open it, else their first page. */}
            <Route path="/">
              <HomePage />
            </Route>
            <Route>
              <Titled title="Page not found">
                <NotFound />
              </Titled>
            </Route>
          </Switch>
          </Suspense>
        </AppLayout>
      );
    }
  }
}
