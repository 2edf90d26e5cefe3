import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderGuide } from "./markdown";

describe("the API guide rendered from Markdown", () => {
  it("gives headings GitHub's ids, so links written for GitHub land on the same heading", () => {
    const html = renderGuide(
      "# Points API\n\n## API keys: scope and daily cap\n\n## POST /v3/points/quotes\n",
      "api.md",
    );
    expect(html).toContain('<h1 id="points-api">Points API</h1>');
    expect(html).toContain('<h2 id="api-keys-scope-and-daily-cap">API keys: scope and daily cap</h2>');
    expect(html).toContain('<h2 id="post-v3pointsquotes">POST /v3/points/quotes</h2>');
  });

  it("keeps in-page and web links, turns links into the same file into anchors, and other repository files into text", () => {
    const html = renderGuide(
      "See [below](#checks), [the object](api.md#topup), [the contract](contract.md#4), [the site](https://example.com/x) and [home](/).",
      "api.md",
    );
    expect(html).toContain('<a href="#checks">below</a>');
    expect(html).toContain('<a href="#topup">the object</a>');
    expect(html).toContain("the contract,");
    expect(html).not.toContain("contract.md");
    expect(html).toContain('<a href="https://example.com/x">the site</a>');
    expect(html).toContain('<a href="/">home</a>');
  });

  it("renders tables and code blocks of docs/api.md, and every link in it lands on a heading it has", () => {
    const html = renderGuide(fs.readFileSync(path.join(process.cwd(), "docs", "api.md"), "utf8"), "api.md");
    // Both scroll sideways on a phone, so a keyboard can focus them.
    expect(html).toContain('<table tabindex="0">');
    expect(html).toContain('<pre tabindex="0"><code class="language-json">');
    expect(html).toContain("<td><code>payment_action_required</code></td>");
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    const anchors = [...html.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]);
    expect(anchors.length).toBeGreaterThan(0);
    for (const anchor of anchors) expect(ids, `#${anchor}`).toContain(anchor);
  });
});
