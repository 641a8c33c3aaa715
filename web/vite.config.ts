import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/** The web app's build (docs/web.md): web/ → web/dist, served by the API role at `/`. */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline script or style: the page's CSP allows this origin only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000', '/ws': { target: 'ws://127.0.0.1:3000', ws: true } },
  },
});
