import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';
import { guideHtml, type GuideLinks } from './guide-page.ts';

export interface DocsUiOptions {
  /** Development: "Try it out" is signed in the page from a pasted key and secret. Production: no "Try it out". */
  appEnv: 'development' | 'production';
}

/** The guides /docs links, served by the gateway from docs/api/ (issue 21 § 2). */
export const GUIDE_URLS = { signing: '/docs/signing', clients: '/docs/clients' } as const;

const GUIDES: Array<{ url: string; file: string; title: string }> = [
  { url: GUIDE_URLS.signing, file: 'README-signing.md', title: 'Signing' },
  { url: GUIDE_URLS.clients, file: 'clients.md', title: 'Typed clients' },
];

const GUIDE_LINKS: GuideLinks = Object.fromEntries(GUIDES.map((guide) => [guide.file, guide.url]));

const read = (relative: string): string => readFileSync(new URL(relative, import.meta.url), 'utf8');

// The console's HMAC-SHA256 fallback, as a script: the page has no module loader. Inside the page script's closure
// (above), its names stay off the page's global scope, which Swagger UI's bundle shares.
const SHA256_SOURCE = read('../../contracts/sha256.js').replace(/^export /gm, '');

/**
 * A function for Swagger UI's configuration. @fastify/swagger-ui writes uiConfig functions into its initializer as
 * source text; built from a string, this one is not touched by the TypeScript loader (which renames functions). It
 * calls the hook the page script (docs-ui.browser.js) defines, whose closure holds the key.
 */
const pageHook = (name: 'requestInterceptor' | 'responseInterceptor' | 'idempotencyKeyPlugin') =>
  new Function('value', `return window.clinicDocs.${name}(value);`);

// The Authorize dialog takes static apiKey values (the document's three header schemes): a fixed X-Signature can
// never work, so it is hidden; the panel above the reference replaces it.
const PAGE_CSS = `
.swagger-ui .auth-wrapper, .swagger-ui .authorization__btn { display: none !important; }
.clinic-signing { max-width: 1460px; margin: 0 auto; padding: 16px 20px 4px; font-family: sans-serif; color: #3b4151; box-sizing: border-box; }
.clinic-signing h2 { font-size: 20px; margin: 8px 0; }
.clinic-signing p { font-size: 14px; line-height: 1.5; margin: 6px 0; }
.clinic-signing code { font-family: monospace; background: #f0f0f0; padding: 1px 4px; border-radius: 3px; }
.clinic-signing__form { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; margin: 10px 0 4px; }
.clinic-signing__form input { font-family: monospace; font-size: 13px; padding: 6px 8px; min-width: 26em; border: 1px solid #d9d9d9; border-radius: 4px; }
.clinic-signing__form .btn { padding: 6px 14px; border: 2px solid #49cc90; background: #fff; border-radius: 4px; cursor: pointer; font-weight: 600; }
.clinic-signing__status { font-size: 13px; padding: 6px 10px; border-radius: 4px; background: #f0f4ff; }
.clinic-signing__status[data-kind="ok"] { background: #e8f8ef; }
.clinic-signing__status[data-kind="warning"] { background: #fff6e0; }
.clinic-signing__status[data-kind="error"] { background: #fdecea; }
`;

/**
 * /docs: Swagger UI over the generated document, with the page script that signs "Try it out" in development mode
 * (or explains signing in production), and the signing and clients guides at /docs/signing and /docs/clients.
 * All assets come from npm and this repository: the page works offline.
 */
export async function registerDocsUi(app: FastifyInstance, options: DocsUiOptions): Promise<void> {
  const development = options.appEnv === 'development';
  const pageScript = `(() => {\n${SHA256_SOURCE}\n${read('./docs-ui.browser.js')}\nclinicDocs(${JSON.stringify(options.appEnv)}, ${JSON.stringify(GUIDE_URLS)});\n})();\n`;
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      deepLinking: true,
      validatorUrl: null,
      defaultModelsExpandDepth: 0,
      // A static X-Signature can never work: in production nothing is sent from the page.
      supportedSubmitMethods: development ? ['get', 'post', 'put', 'patch', 'delete'] : [],
      requestInterceptor: pageHook('requestInterceptor'),
      responseInterceptor: pageHook('responseInterceptor'),
      // Replaces @fastify/swagger-ui's default list, which is DownloadUrl alone: kept, with the page's own plugin.
      plugins: [
        new Function('system', 'return SwaggerUIBundle.plugins.DownloadUrl(system);'),
        pageHook('idempotencyKeyPlugin'),
      ],
    } as Record<string, unknown>,
    theme: {
      title: 'Clinic Exams Gateway API',
      js: [{ filename: 'signing.js', content: pageScript }],
      css: [{ filename: 'signing.css', content: PAGE_CSS }],
    },
    staticCSP: false,
  });

  for (const guide of GUIDES) {
    app.get(guide.url, { schema: { hide: true } }, async (_request, reply) => {
      // Read per request: the guide is small and this page is rare; an edited guide shows without a restart.
      let markdown: string;
      try {
        markdown = read(`../../docs/api/${guide.file}`);
      } catch {
        return reply
          .code(404)
          .type('text/plain; charset=utf-8')
          .send(`docs/api/${guide.file} is not in this installation.\n`);
      }
      const html = guideHtml({
        title: 'Clinic Exams Gateway API',
        source: `docs/api/${guide.file}`,
        markdown,
        nav: [['API reference (/docs)', '/docs'], ...GUIDES.map((g): [string, string] => [g.title, g.url])],
        links: GUIDE_LINKS,
      });
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
    });
  }
}
