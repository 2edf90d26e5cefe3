import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderGuide } from "./markdown";

describe("the API guide rendered from Markdown", () => {
  it("gives headings GitHub's ids, so links written for GitHub land on the same heading", () => {
    const { html } = renderGuide(
      "# Points API\n\n## API keys: scope and daily cap\n\n## POST /v3/points/quotes\n",
      "api.md",
    );
    expect(html).toContain('<h1 id="points-api">Points API</h1>');
    expect(html).toContain('<h2 id="api-keys-scope-and-daily-cap">API keys: scope and daily cap</h2>');
    expect(html).toContain('<h2 id="post-v3pointsquotes">POST /v3/points/quotes</h2>');
  });

  it("keeps in-page and web links, turns links into the same file into anchors, and other repository files into text", () => {
    const { html } = renderGuide(
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
    const { html } = renderGuide(fs.readFileSync(path.join(process.cwd(), "docs", "api.md"), "utf8"), "api.md");
    // Both scroll sideways on a phone, so a keyboard can focus them.
    expect(html).toContain('<table tabindex="0">');
    expect(html).toContain('<pre tabindex="0"><code class="language-json">');
    expect(html).toContain("<td><code>payment_action_required</code></td>");
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    const anchors = [...html.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]);
    expect(anchors.length).toBeGreaterThan(0);
    for (const anchor of anchors) expect(ids, `#${anchor}`).toContain(anchor);
  });

  it("lists the headings for a table of contents: each with its level, its text without markup, and its anchor", () => {
    const { headings } = renderGuide(
      "# Points API\n\n## Spending Points: `POST /v3/points/spends`\n\n### The feed\n\n```sh\n# not a heading\n```\n\n## The feed\n",
      "api.md",
    );
    expect(headings).toEqual([
      { level: 1, text: "Points API", id: "points-api" },
      { level: 2, text: "Spending Points: POST /v3/points/spends", id: "spending-points-post-v3pointsspends" },
      { level: 3, text: "The feed", id: "the-feed" },
      { level: 2, text: "The feed", id: "the-feed-1" },
    ]);
    // Each render starts its own list, and its ids.
    expect(renderGuide("## The feed\n", "api.md").headings).toEqual([{ level: 2, text: "The feed", id: "the-feed" }]);
  });

  it("gives every heading of docs/api.md an entry whose anchor is the heading's id", () => {
    const { html, headings } = renderGuide(
      fs.readFileSync(path.join(process.cwd(), "docs", "api.md"), "utf8"),
      "api.md",
    );
    const ids = [...html.matchAll(/<h([1-6]) id="([^"]+)">/g)].map((match) => `${match[1]}:${match[2]}`);
    expect(headings.map((heading) => `${heading.level}:${heading.id}`)).toEqual(ids);
    expect(headings.filter((heading) => heading.level === 2).length).toBeGreaterThan(10);
  });
});
