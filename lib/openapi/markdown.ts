import { Marked, type Tokens } from "marked";
import { getHeadingList, gfmHeadingId } from "marked-gfm-heading-id";

/** A heading of a guide: its level (2 for ##), its text without markup, and its anchor. */
export interface GuideHeading {
  level: number;
  text: string;
  id: string;
}

/** A guide as HTML, with its headings in order, for a table of contents. */
export interface RenderedGuide {
  html: string;
  headings: GuideHeading[];
}

/**
 * A guide kept in the repository (docs/*.md) as HTML for the app to serve. Headings get GitHub's ids,
 * so the guide's own links (#reading-purchases) and links into it keep working. Links to another
 * file of the repository mean nothing on the site: `api.md#x` becomes `#x`, and any other relative
 * link is kept as its text.
 */
export function renderGuide(markdown: string, fileName: string): RenderedGuide {
  const marked = new Marked({ gfm: true }, gfmHeadingId());
  marked.use({
    renderer: {
      link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        const href = token.href;
        if (/^(https?:|mailto:|#|\/)/.test(href)) return false;
        const [file, anchor] = href.split("#");
        if ((file === fileName || file === `./${fileName}`) && anchor) return `<a href="#${anchor}">${text}</a>`;
        return text;
      },
    },
  });
  // Code blocks and tables scroll sideways when wide (a phone): focusable, a keyboard can scroll them
  // (WCAG 2.1.1). Text is escaped by marked, so "<pre>" and "<table>" here are only ever its own tags.
  const html = marked
    .parse(markdown, { async: false })
    .replaceAll("<pre>", '<pre tabindex="0">')
    .replaceAll("<table>", '<table tabindex="0">');
  // The extension lists the headings of the parse just made (it starts a new list at each parse).
  const headings = getHeadingList().map(({ level, raw, id }) => ({ level, text: raw, id }));
  return { html, headings };
}
