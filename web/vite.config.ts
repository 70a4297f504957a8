/**
 * Vite build of the web UI into `web/dist` (served by the server at `/`). No inline scripts: the
 * module-preload polyfill is off (modern browsers need none), so `index.html` only references files.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    // `npm run dev -w web` against a server on the default port.
    proxy: { '/v1': 'http://127.0.0.1:9997', '/status': 'http://127.0.0.1:9997' },
  },
});
