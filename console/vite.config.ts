import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const consoleRoot = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(consoleRoot, '..');
// The gateway the dev server proxies to (npm start in another terminal).
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: consoleRoot,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: path.join(consoleRoot, 'dist'),
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: {
      // zod places explanatory comments next to its `@__PURE__` annotations; Rollup only drops the comment.
      // Said at every first start, it read like an error (issue 21). Any other warning still shows.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/zod/')) return;
        warn(warning);
      },
      // Libraries (React, TanStack Query, zod) in a chunk of their own: they change far less often than the
      // screens, so a browser keeps them cached across console releases, and neither chunk nears vite's 500 kB.
      output: {
        manualChunks(id) {
          if (id.includes('/node_modules/')) return 'vendor';
        },
      },
    },
  },
  server: {
    port: 5173,
    strictPort: true,
    // The console API wire (contracts/admin) lives outside the console root.
    fs: { allow: [repoRoot] },
    proxy: {
      '/admin/api': { target: gateway, changeOrigin: false },
      '/v1': { target: gateway, changeOrigin: false },
    },
  },
});
