import { describe, expect, it } from 'vitest';
import { checkDocs, checkMarkdown, formatProblem, githubSlug } from './doc-links.ts';

// Issue 29 § 4: every relative link, #anchor and backticked repository path of README.md and docs/ resolves
// (what counts as each: the comment at the top of doc-links.ts). `npm run lint:docs` is the same check.

const FENCE = '```';

/** A page as it would sit in docs/, with one reference of each kind that resolves and one that does not. */
const CRAFTED = [
  '# Crafted page', // 1
  '', // 2
  '## Heading with `code` and ü: a–b', // 3
  '', // 4
  'Good: [layers](architecture.md#layers-who-may-import-whom), [own](#crafted-page), [twice](#crafted-page-1),', // 5
  '[slug](#heading-with-code-and-ü-ab), [readme](../README.md#first-signed-call), ![shot](screenshots/keys.png),', // 6
  '`server/app.ts`, `test/`, `package.json`, `./docs/architecture.md#processes-and-ports`, `server/app.ts:12`.', // 7
  '', // 8
  'Bad: [gone](missing-page.md) and [no heading](#no-such-heading)', // 9
  'and [no section](../README.md#no-such-section).', // 10
  '', // 11
  'A path that moved: `server/no-such-file.ts`, and `docs/architecture.md#no-such-anchor`.', // 12
  '', // 13
  'Not references: `npm run lint`, `server/routes/v1/<family>.ts`, `backend-sim/domain/*/*.schemas.ts`,', // 14
  '`data/gateway.db` and `console/dist/.build-hash` (git-ignored), `/v1/ping`, `seed/x.ts …`, `[x](nowhere.md)`,', // 15
  '[web](https://example.com/a.md), [served](/docs/signing), `BACKEND_TOKEN=x tsx backend-sim/nope.ts`.', // 16
  '', // 17
  `${FENCE}bash`, // 18
  'cat `server/in-a-fence.ts` [x](in-a-fence.md)', // 19
  FENCE, // 20
  '', // 21
  '## Crafted page', // 22
  '', // 23
  '[reference]: gone-too.md', // 24
].join('\n');

describe('the docs link check (test/docs/doc-links.ts)', () => {
  it('finds nothing broken in README.md and docs/', () => {
    expect(checkDocs().map(formatProblem)).toEqual([]);
  });

  it('names the page, the line and the missing path of each broken link, anchor and backticked path, and only those', () => {
    expect(checkMarkdown('docs/crafted.md', CRAFTED).map(formatProblem)).toEqual([
      'docs/crafted.md:9: link (missing-page.md): no such file or folder docs/missing-page.md',
      'docs/crafted.md:9: link (#no-such-heading): no heading #no-such-heading in this page',
      'docs/crafted.md:10: link (../README.md#no-such-section): no heading #no-such-section in README.md',
      'docs/crafted.md:12: `server/no-such-file.ts`: no such file or folder server/no-such-file.ts',
      'docs/crafted.md:12: `docs/architecture.md#no-such-anchor`: no heading #no-such-anchor in docs/architecture.md',
      'docs/crafted.md:24: link (gone-too.md): no such file or folder docs/gone-too.md',
    ]);
  });

  it("makes GitHub's anchors from headings", () => {
    expect(
      githubSlug(
        'The audit journal: budget, aggregation, fail closed (issue 19; its reset and token rules are TR6–TR9)',
      ),
    ).toBe('the-audit-journal-budget-aggregation-fail-closed-issue-19-its-reset-and-token-rules-are-tr6tr9');
    expect(githubSlug("Signing with the appliance's time")).toBe('signing-with-the-appliances-time');
    expect(githubSlug('Console API (`/admin/api`)')).toBe('console-api-adminapi');
    expect(githubSlug('Every screen at 1440×900 and 1024×768')).toBe('every-screen-at-1440900-and-1024768');
  });
});
