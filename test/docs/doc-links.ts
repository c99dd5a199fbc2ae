/**
 * The docs' references resolve (issue 29 § 4): every relative link and every backticked repository path in
 * README.md and docs/**\/*.md names a file or folder of the repository, and every #anchor a heading of its page.
 * `npm run lint:docs` runs this file; test/docs/links.test.ts runs the same check inside `npm test`.
 *
 * What is checked, outside fenced code blocks (```/~~~), which are examples and not references:
 * - a link `[text](target)`, an image `![alt](target)` or a reference definition `[name]: target` whose target has
 *   no scheme (`https:`, `mailto:`…) and does not start with `/` (a root path is a URL of the running gateway,
 *   e.g. `/docs/signing`, not a file). It resolves from the page's folder; `#anchor` alone is the page's own.
 * - an anchor (`page.md#anchor`, `#anchor`) on a markdown page: it must be the GitHub slug of one of the page's
 *   headings (ATX `#` headings outside code, lowercased, punctuation and symbols dropped, spaces to hyphens, a
 *   repeated slug suffixed -1, -2…) or an explicit `<a id>`/`<a name>`.
 * - a backticked repository path: an inline code span that, without an optional leading `./`, a trailing
 *   `:<line>` and a trailing `#anchor` (checked like a link's), either is a file name of the repository's root
 *   (`package.json`) or has a `/` and begins with a top-level entry of the repository (`server/app.ts`, `test/`,
 *   `docs/api/agenda.md`).
 *   A span with white space, a glob or placeholder character (`* ? < > { } [ ] $ … |`), `...`, `=`, quotes,
 *   parentheses, a comma, a semicolon or any other `:` is prose or a pattern, not a path, and is not checked.
 *   Paths from the repository's root, whatever page names them. Top-level entries are the root's, less `.git`
 *   and what .gitignore ignores (`data/` is the appliance's state, not the repository's).
 * - a path .gitignore ignores (`console/dist/.build-hash`, built or written at run time) is not checked.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface DocProblem {
  /** The page, relative to the repository root. */
  file: string;
  line: number;
  message: string;
}

export const formatProblem = (p: DocProblem) => `${p.file}:${p.line}: ${p.message}`;

/** README.md and every markdown page under docs/, relative to the root, sorted. */
export function docFiles(root = REPO_ROOT): string[] {
  const pages: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) pages.push(rel);
    }
  };
  if (existsSync(path.join(root, 'docs'))) walk('docs');
  return ['README.md', ...pages.sort()].filter((file) => existsSync(path.join(root, file)));
}

/** Every page's problems, in page order. */
export function checkDocs(root = REPO_ROOT): DocProblem[] {
  const checker = new DocChecker(root);
  return docFiles(root).flatMap((file) => checker.check(file, readFileSync(path.join(root, file), 'utf8')));
}

/** One page's problems, its text given (`file` is where it would live, relative to the root). */
export function checkMarkdown(file: string, text: string, root = REPO_ROOT): DocProblem[] {
  return new DocChecker(root).check(file, text);
}

interface Span {
  text: string;
  line: number;
}

/** One markdown page cut into what is checked: its paragraphs' code spans and their text with the spans masked. */
interface Parsed {
  codeSpans: Span[];
  /** Each paragraph with its code spans blanked (links inside backticks are not links), and its first line. */
  paragraphs: Span[];
  anchors: Set<string>;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const EXPLICIT_ANCHOR = /<a\s+(?:id|name)="([^"]+)"/g;

function parse(text: string): Parsed {
  const lines = text.split(/\r?\n/);
  const codeSpans: Span[] = [];
  const paragraphs: Span[] = [];
  const anchors = new Set<string>();
  const slugCount = new Map<string, number>();
  let fence: string | null = null;
  let paragraph: string[] = [];
  let paragraphStart = 0;

  const endParagraph = () => {
    if (paragraph.length === 0) return;
    const joined = paragraph.join('\n');
    const masked = maskCodeSpans(joined, paragraphStart, codeSpans);
    paragraphs.push({ text: masked, line: paragraphStart });
    for (const match of joined.matchAll(EXPLICIT_ANCHOR)) anchors.add(match[1]);
    paragraph = [];
  };

  lines.forEach((line, index) => {
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = null;
      return;
    }
    if (fenceMatch) {
      endParagraph();
      fence = fenceMatch[1];
      return;
    }
    if (line.trim() === '') {
      endParagraph();
      return;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      endParagraph();
      const base = githubSlug(heading[2]);
      const seen = slugCount.get(base) ?? 0;
      slugCount.set(base, seen + 1);
      anchors.add(seen === 0 ? base : `${base}-${seen}`);
    }
    if (paragraph.length === 0) paragraphStart = index + 1;
    paragraph.push(line);
    if (heading) endParagraph();
  });
  endParagraph();
  return { codeSpans, paragraphs, anchors };
}

/** CommonMark code spans: a run of n backticks up to the next run of exactly n. Collects them, returns the text
 * with each span's characters replaced by spaces (line breaks kept, so line numbers stay right). */
function maskCodeSpans(text: string, firstLine: number, out: Span[]): string {
  let masked = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '`') {
      masked += text[i++];
      continue;
    }
    let run = 0;
    while (text[i + run] === '`') run++;
    const close = findRun(text, i + run, run);
    if (close < 0) {
      masked += text.slice(i, i + run);
      i += run;
      continue;
    }
    const inner = text.slice(i + run, close);
    const line = firstLine + countLines(text.slice(0, i));
    out.push({ text: inner.replace(/\n/g, ' ').trim(), line });
    masked += text.slice(i, close + run).replace(/[^\n]/g, ' ');
    i = close + run;
  }
  return masked;
}

function findRun(text: string, from: number, length: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] !== '`') continue;
    let run = 0;
    while (text[i + run] === '`') run++;
    if (run === length) return i;
    i += run - 1;
  }
  return -1;
}

const countLines = (text: string) => text.split('\n').length - 1;

/** GitHub's heading slug: the heading's text (markup dropped) lowercased, every character that is not a letter,
 * mark, digit, `_`, `-` or space dropped, spaces turned into hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*)/g, '');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

const LINK = /!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE = /^ {0,3}\[[^\]]+\]:\s*(\S+)/gm;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** What a path never holds but prose and patterns do. */
const NOT_A_PATH = /[\s*?<>{}[\]$…|,;='"()]|\.\.\./;

interface IgnoreRule {
  pattern: RegExp;
  /** Matched against the whole path from the root (the pattern has a `/` before its end), else each name. */
  anchored: boolean;
}

/** .gitignore's rules in the subset this repository uses: names and globs, anchored when they hold a `/`. */
function readIgnoreRules(root: string): IgnoreRule[] {
  const file = path.join(root, '.gitignore');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('!'))
    .map((line) => {
      const body = line.replace(/\/+$/, '');
      const anchored = body.includes('/');
      const glob = body
        .replace(/^\//, '')
        .split('')
        .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return { pattern: new RegExp(`^${glob}$`), anchored };
    });
}

class DocChecker {
  private readonly ignoreRules: IgnoreRule[];
  private readonly topLevel: Set<string>;
  private readonly rootFiles: Set<string>;
  private readonly anchorsByPage = new Map<string, Set<string>>();

  constructor(private readonly root: string) {
    this.ignoreRules = readIgnoreRules(root);
    const entries = readdirSync(root, { withFileTypes: true }).filter(
      (entry) => entry.name !== '.git' && !this.ignored(entry.name),
    );
    this.topLevel = new Set(entries.map((entry) => entry.name));
    this.rootFiles = new Set(entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name));
  }

  check(file: string, text: string): DocProblem[] {
    const parsed = parse(text);
    const problems: DocProblem[] = [];
    const report = (line: number, message: string) => problems.push({ file, line, message });

    for (const paragraph of parsed.paragraphs) {
      const targets = [...paragraph.text.matchAll(LINK), ...paragraph.text.matchAll(REFERENCE)];
      for (const match of targets) {
        const target = match[1].replace(/^<|>$/g, '');
        if (SCHEME.test(target) || target.startsWith('/')) continue;
        const line = paragraph.line + countLines(paragraph.text.slice(0, match.index));
        const missing = this.resolve(path.dirname(path.join(this.root, file)), target, parsed.anchors);
        if (missing) report(line, `link (${target}): ${missing}`);
      }
    }
    for (const span of parsed.codeSpans) {
      const candidate = this.repositoryPath(span.text);
      if (candidate === null) continue;
      const missing = this.resolve(this.root, candidate, parsed.anchors);
      if (missing) report(span.line, `\`${span.text}\`: ${missing}`);
    }
    return problems.sort((a, b) => a.line - b.line);
  }

  /** The span as a path from the root to check, or null when it is not a repository path (see the file's top). */
  private repositoryPath(span: string): string | null {
    const candidate = span
      .replace(/^\.\//, '')
      .replace(/:\d+(?::\d+)?$/, '')
      .replace(/#[^#]*$/, (anchor) => (anchor.length > 1 ? anchor : ''));
    const [pathPart] = candidate.split('#');
    if (pathPart === '' || NOT_A_PATH.test(candidate) || pathPart.includes(':')) return null;
    const first = pathPart.split('/')[0];
    const isPath = pathPart.includes('/') ? this.topLevel.has(first) : this.rootFiles.has(pathPart);
    if (!isPath || this.ignored(pathPart)) return null;
    return candidate;
  }

  /** Why `target` (a path with an optional #anchor, from `base`) does not resolve, or null when it does. */
  private resolve(base: string, target: string, ownAnchors: Set<string>): string | null {
    const hash = target.indexOf('#');
    const pathPart = hash < 0 ? target : target.slice(0, hash);
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    const absolute = pathPart === '' ? null : path.resolve(base, decodeURIComponent(pathPart));
    if (absolute !== null && !existsSync(absolute)) {
      return `no such file or folder ${path.relative(this.root, absolute) || '.'}`;
    }
    if (anchor === null || anchor === '') return null;
    const anchors = absolute === null ? ownAnchors : this.pageAnchors(absolute);
    if (anchors === null) return null;
    const page = absolute === null ? 'this page' : path.relative(this.root, absolute);
    return anchors.has(anchor) ? null : `no heading #${anchor} in ${page}`;
  }

  /** The headings' anchors of a markdown page, or null when the path is a folder or not markdown. */
  private pageAnchors(page: string): Set<string> | null {
    if (!page.endsWith('.md') || statSync(page).isDirectory()) return null;
    let anchors = this.anchorsByPage.get(page);
    if (!anchors) {
      anchors = parse(readFileSync(page, 'utf8')).anchors;
      this.anchorsByPage.set(page, anchors);
    }
    return anchors;
  }

  private ignored(relative: string): boolean {
    const names = relative.replace(/\/+$/, '').split('/');
    return names.some((_, i) => {
      const prefix = names.slice(0, i + 1).join('/');
      return this.ignoreRules.some((rule) => rule.pattern.test(rule.anchored ? prefix : names[i]));
    });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const problems = checkDocs();
  for (const problem of problems) console.error(formatProblem(problem));
  const pages = docFiles().length;
  if (problems.length > 0) {
    console.error(
      `${problems.length} broken reference(s) in ${pages} pages (test/docs/doc-links.ts says what is checked)`,
    );
    process.exit(1);
  }
  console.log(`docs: every link, anchor and backticked repository path in ${pages} pages resolves`);
}
