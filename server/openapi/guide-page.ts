/**
 * The integrator guides the /docs page links (docs/api/README-signing.md, docs/api/clients.md) as HTML pages of the
 * gateway, so the reference's links work offline on the appliance. A small Markdown subset, the one the guides use:
 * ATX headings (with GitHub's anchors), fenced code, pipe tables, `-` lists, paragraphs, inline code, links, bold.
 */

const escapeHtml = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

export interface GuideLinks {
  /** A guide's file name (`README-signing.md`) → where the gateway serves it (`/docs/signing`). */
  [file: string]: string;
}

function href(target: string, links: GuideLinks): string | null {
  if (/^(https?:|mailto:)/.test(target) || target.startsWith('#') || target.startsWith('/')) return target;
  const [file, anchor] = target.split('#');
  const served = links[file.replace(/^\.\//, '')];
  if (served) return anchor ? `${served}#${anchor}` : served;
  return null;
}

/** Inline Markdown: code spans first (their content is literal), then links and bold in the rest. */
function inline(text: string, links: GuideLinks): string {
  return text
    .split(/(`+[^`]+`+)/)
    .map((part, index) => {
      // `\|` is a pipe escaped for a table cell, in code spans too (as GitHub renders it).
      if (index % 2 === 1) return `<code>${escapeHtml(part.replace(/^`+ ?| ?`+$/g, '').replace(/\\\|/g, '|'))}</code>`;
      return escapeHtml(part)
        .replace(/\\\|/g, '|')
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, target: string) => {
          const to = href(target.replace(/&amp;/g, '&'), links);
          // A repository file the gateway does not serve: its path, not a broken link.
          return to ? `<a href="${escapeHtml(to)}">${label}</a>` : `${label} (<code>${target}</code>)`;
        });
    })
    .join('');
}

const tableCells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** Markdown (the subset above) to HTML. */
export function renderMarkdown(markdown: string, links: GuideLinks): string {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  const html: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) {
      const code: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) code.push(lines[i]);
      i++;
      html.push(
        `<pre><code${fence[1] ? ` class="language-${escapeHtml(fence[1])}"` : ''}>${escapeHtml(code.join('\n'))}</code></pre>`,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1].length;
      html.push(`<h${level} id="${escapeHtml(headingAnchor(heading[2]))}">${inline(heading[2], links)}</h${level}>`);
      i++;
      continue;
    }
    if (/^\|/.test(line) && /^\|?\s*:?-+/.test(lines[i + 1] ?? '')) {
      const head = tableCells(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && /^\|/.test(lines[i]); i++) rows.push(tableCells(lines[i]));
      html.push(
        `<table><thead><tr>${head.map((cell) => `<th>${inline(cell, links)}</th>`).join('')}</tr></thead><tbody>` +
          rows.map((row) => `<tr>${row.map((cell) => `<td>${inline(cell, links)}</td>`).join('')}</tr>`).join('') +
          '</tbody></table>',
      );
      continue;
    }
    if (/^[-*]\s+/.test(line)) {
      const items: string[] = [];
      while (i < lines.length && /^([-*]\s+|\s+\S)/.test(lines[i])) {
        if (/^[-*]\s+/.test(lines[i])) items.push(lines[i].replace(/^[-*]\s+/, ''));
        else items[items.length - 1] += ` ${lines[i].trim()}`;
        i++;
      }
      html.push(`<ul>${items.map((item) => `<li>${inline(item, links)}</li>`).join('')}</ul>`);
      continue;
    }
    if (/^\d+\.\s+/.test(line)) {
      const items: string[] = [];
      while (i < lines.length && /^(\d+\.\s+|\s+\S)/.test(lines[i])) {
        if (/^\d+\.\s+/.test(lines[i])) items.push(lines[i].replace(/^\d+\.\s+/, ''));
        else items[items.length - 1] += ` ${lines[i].trim()}`;
        i++;
      }
      html.push(`<ol>${items.map((item) => `<li>${inline(item, links)}</li>`).join('')}</ol>`);
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i].trim() !== '' && !/^(```|#{1,6}\s|\||[-*]\s+|\d+\.\s+)/.test(lines[i]))
      paragraph.push(lines[i++].trim());
    html.push(`<p>${inline(paragraph.join(' '), links)}</p>`);
  }
  return html.join('\n');
}

const STYLE = `
body { font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
nav { display: flex; gap: 1.25rem; padding: .5rem 0 1rem; border-bottom: 1px solid #d0d7de; margin-bottom: 1rem; }
a { color: #0969da; }
h1, h2, h3 { line-height: 1.25; margin-top: 1.6em; }
h1 { margin-top: .5em; }
code { font: 13px/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #f6f8fa; padding: .1em .3em; border-radius: 4px; }
pre { background: #f6f8fa; padding: .8rem 1rem; overflow-x: auto; border-radius: 6px; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d0d7de; padding: .35rem .6rem; text-align: left; vertical-align: top; }
footer { margin-top: 3rem; color: #59636e; font-size: 13px; }
`;

export interface GuidePage {
  title: string;
  /** The file in the repository, named in the footer. */
  source: string;
  markdown: string;
  /** Navigation shown above the guide: label → URL. */
  nav: Array<[label: string, url: string]>;
  links: GuideLinks;
}

/** A whole HTML page; its only resources are inline (the page works offline). */
export function guideHtml(page: GuidePage): string {
  const title = /^#\s+(.*)$/m.exec(page.markdown)?.[1] ?? page.title;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<nav>${page.nav.map(([label, url]) => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`).join('')}</nav>
<main>
${renderMarkdown(page.markdown, page.links)}
</main>
<footer>Rendered by the gateway from <code>${escapeHtml(page.source)}</code> of this appliance.</footer>
</body>
</html>
`;
}
