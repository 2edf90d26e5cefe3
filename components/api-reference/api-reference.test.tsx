import { execFileSync } from "node:child_process";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiReference } from "./api-reference";
import { ApiReferenceContents } from "./contents";
import { curlCommand } from "./curl";
import { asDocument, listOperations } from "./operations";
/*
 * A realistic OpenAPI 3.1 document of part of this API, written by hand: these tests render it, so
 * they do not change whenever the generated document does. It is shaped as lib/openapi/document.ts's
 * output: errors as `$ref`s to shared responses, nullable fields as type arrays, examples on every body.
 */
import sampleDocument from "./sample-document.json";

/** The page's text as a reader sees it: tags dropped, entities decoded, spaces collapsed. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

/** The whole element carrying `attribute="value"`: one operation's, response's, parameter's or field's markup. */
function part(html: string, attribute: string, value: string): string {
  const marker = html.indexOf(`${attribute}="${value}"`);
  expect(marker, `${attribute}="${value}" is rendered`).toBeGreaterThanOrEqual(0);
  const start = html.lastIndexOf("<", marker);
  const tag = /^<([a-z0-9]+)/.exec(html.slice(start))?.[1] ?? "";
  const pattern = new RegExp(`<${tag}[\\s>]|</${tag}>`, "g");
  pattern.lastIndex = start;
  let depth = 0;
  for (let match = pattern.exec(html); match; match = pattern.exec(html)) {
    depth += match[0].startsWith("</") ? -1 : 1;
    if (depth === 0) return html.slice(start, match.index + match[0].length);
  }
  throw new Error(`<${tag}> at ${start} is not closed`);
}

function render(document: object): string {
  return renderToStaticMarkup(<ApiReference document={document} guideHref="/docs/guide" />);
}

const sample = structuredClone(sampleDocument);
const html = render(sample);
const contents = renderToStaticMarkup(<ApiReferenceContents document={sample} />);

/** The sample document's sections, in its order: authentication, each tag with its operations, the schemas. */
const SECTIONS = [
  "authentication",
  "tag-Top-ups",
  "createTopUp",
  "listTopUps",
  "getTopUp",
  "tag-Payment-methods",
  "listPaymentMethods",
  "schemas",
  ...["TopUpRequest", "Failure", "TopUp", "TopUpAnswer", "PaymentMethod", "Error"].map((name) => `schema-${name}`),
];

describe("the API reference rendered from an OpenAPI document", () => {
  it("shows every operation with its method and path, an anchor, and an entry in the contents", () => {
    const operations = Object.entries(sample.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        path,
        method,
        id: operation.operationId,
        summary: operation.summary,
      })),
    );
    expect(operations.map((operation) => operation.id)).toEqual([
      "createTopUp",
      "listTopUps",
      "getTopUp",
      "listPaymentMethods",
    ]);
    for (const { path, method, id, summary } of operations) {
      expect(html).toContain(`<section id="${id}"`);
      const text = textOf(part(html, "data-operation", id));
      expect(text).toContain(`${summary} ${method.toUpperCase()} ${path}`);
      expect(contents).toContain(`href="#${id}"`);
      expect(textOf(part(contents, "href", `#${id}`))).toBe(`${summary} ${method.toUpperCase()} ${path}`);
    }
    // In the document's order, under its tags.
    expect([...html.matchAll(/<section id="([^"]+)"/g)].map((match) => match[1])).toEqual(SECTIONS);
  });

  it("lists in its contents authentication, each tag with its operations, and the schemas, each a link to its section", () => {
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    const links = [...contents.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]);
    expect(links).toEqual(SECTIONS);
    for (const link of links) expect(ids, `#${link}`).toContain(link);
    // A document without security schemes has no Authentication section, and no link to one.
    const bare = { ...sample, components: { ...sample.components, securitySchemes: undefined } };
    expect(render(bare)).not.toContain('id="authentication"');
    expect(renderToStaticMarkup(<ApiReferenceContents document={bare} />)).not.toContain('href="#authentication"');
  });

  it("starts with the document's title, its introduction, authentication, and the link to the guide", () => {
    const text = textOf(html);
    expect(text.startsWith("Points API Version 3.0.0")).toBe(true);
    expect(text).toContain("A purchase is paid only when data.top_up.status is paid .");
    expect(html).toContain("<li>Send the same <code");
    expect(text).toContain("Authentication Send the key in the Authorization header: Authorization: Bearer <key> .");
    expect(html).toContain('href="/docs/guide"');
  });

  it("resolves an error response given as a $ref to components.responses, with its schema and example", () => {
    const operation = part(html, "data-operation", "createTopUp");
    const paymentFailed = textOf(part(operation, "data-status", "402"));
    expect(paymentFailed).toContain(
      "402 Payment Required The payment failed, or awaits the cardholder; data.top_up is the purchase. PaymentFailed Error · The error envelope. Example: Declined",
    );
    // The envelope the response refers to in turn links to its one entry under Schemas.
    expect(part(operation, "data-status", "402")).toContain('<a href="#schema-Error"');
    expect(paymentFailed).toContain('"code": "payment_failed"');
    const envelope = textOf(part(html, "data-schema", "Error"));
    expect(envelope).toContain("error.code required string What went wrong, in snake_case.");
    expect(envelope).toContain(
      "data.top_up optional TopUp One purchase of a bundle. data.points_balance optional integer",
    );
    expect(part(html, "data-schema", "Error")).toContain('<a href="#schema-TopUp"');
    const rateLimited = textOf(part(operation, "data-status", "429"));
    expect(rateLimited).toContain("Header Retry-After (integer) : Whole seconds to wait.");
  });

  it("marks required fields and parameters, and lists enum values", () => {
    const operation = part(html, "data-operation", "createTopUp");
    expect(textOf(part(operation, "data-field", "points"))).toBe(
      "points required integer The bundle to buy. One of: 100 , 250 , 500 , 1000 , 2500 , 5000 , 7500",
    );
    expect(textOf(part(operation, "data-field", "reference"))).toContain("reference required string");
    expect(textOf(part(operation, "data-field", "reference"))).toContain(
      "1-100 characters · pattern ^[A-Za-z0-9._:-]+$",
    );
    // A nullable enum given as anyOf [$ref, null]: optional, "string or null", its values listed.
    expect(textOf(part(operation, "data-field", "currency"))).toBe(
      "currency optional string or null Omitted: the organisation's saved currency. One of: USD , GBP , EUR",
    );

    const getTopUp = part(html, "data-operation", "getTopUp");
    expect(textOf(part(getTopUp, "data-parameter", "id"))).toBe("id required in path string The purchase's id .");
    const list = part(html, "data-operation", "listTopUps");
    expect(textOf(part(list, "data-parameter", "status"))).toContain(
      "status optional in query string Only purchases in this state. One of: pending , processing , awaiting_payment , failed , paid",
    );
    expect(textOf(part(list, "data-parameter", "limit"))).toContain("limit optional in query integer");
  });

  it("lays out inline nested objects under their parent's path, and each named object once, linked from its uses", () => {
    const list = part(html, "data-operation", "listTopUps");
    const ok = textOf(part(list, "data-status", "200"));
    expect(ok).toContain("data.top_ups required array of TopUp");
    expect(ok).toContain("data.has_more required boolean More purchases remain past this page.");
    expect(part(list, "data-status", "200")).toContain('<a href="#schema-TopUp"');

    const topUp = textOf(part(html, "data-schema", "TopUp"));
    expect(topUp).toContain("TopUp object · One purchase of a bundle.");
    expect(topUp).toContain("failure required Failure or null When failed or awaiting_payment , else null.");
    expect(topUp).toContain("paid_at required string (date-time) or null Null until paid.");
    expect(topUp).toContain(
      "status required string pending and processing are not known yet; paid and failed are final. One of: pending , processing",
    );
    expect(part(html, "data-schema", "TopUp")).toContain('<a href="#schema-Failure"');
    expect(textOf(part(html, "data-schema", "Failure"))).toContain("code required string Why, e.g. card_declined .");
    // Inline objects are laid out in place, under their parent's path.
    expect(textOf(part(html, "data-schema", "Error"))).toContain(
      "error.code required string What went wrong, in snake_case.",
    );
  });

  it("builds a curl example from the examples: the key, the path parameter, the JSON body", () => {
    const create = textOf(part(html, "data-operation", "createTopUp"));
    expect(create).toContain(
      `Example request curl -X POST http://localhost:3000/v3/points/top-ups \\ -H "Authorization: Bearer $API_KEY" \\ -H 'Content-Type: application/json' \\ -d '{ "points": 500, "currency": "USD", "payment_source_id": "pm_1Q2w3E4r5T6y7U8i", "reference": "order-7f3a" }'`,
    );
    const get = textOf(part(html, "data-operation", "getTopUp"));
    expect(get).toContain(
      `curl -X GET http://localhost:3000/v3/points/top-ups/tu_EvTZ9NpBS3UeZkEZhVoL \\ -H "Authorization: Bearer $API_KEY"`,
    );
    const list = textOf(part(html, "data-operation", "listTopUps"));
    expect(list).toContain(
      `curl -X GET 'http://localhost:3000/v3/points/top-ups?created%5Bgte%5D=2026-11-01T00%3A00%3A00Z'`,
    );
  });

  it("gives curl, run by a shell, the method, URL, key and body the document's examples hold", () => {
    const document = asDocument(sample);
    const create = listOperations(document).find((entry) => entry.id === "createTopUp");
    if (!create) throw new Error("createTopUp is missing");
    // A curl that prints its arguments, one per line with NUL between, instead of sending anything.
    const printed = execFileSync("bash", [
      "-c",
      `curl() { printf '%s\\0' "$@"; }; API_KEY=key_123; ${curlCommand(document, create)}`,
    ]);
    const argv = printed.toString().split("\0").slice(0, -1);
    expect(argv.slice(0, 7)).toEqual([
      "-X",
      "POST",
      "http://localhost:3000/v3/points/top-ups",
      "-H",
      "Authorization: Bearer key_123",
      "-H",
      "Content-Type: application/json",
    ]);
    expect(argv[7]).toBe("-d");
    expect(JSON.parse(argv[8] ?? "")).toEqual(
      sample.paths["/v3/points/top-ups"].post.requestBody.content["application/json"].example,
    );
  });

  it("survives schemas that refer to themselves, $refs that loop, and $refs to nothing", () => {
    const document = {
      openapi: "3.1.0",
      info: { title: "Cycles" },
      paths: {
        "/nodes": {
          get: {
            operationId: "getNode",
            responses: {
              "200": {
                description: "A tree.",
                content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } },
              },
              "400": { $ref: "#/components/responses/Loop" },
              "404": { $ref: "#/components/responses/Missing" },
            },
          },
        },
      },
      components: {
        schemas: {
          Node: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string" },
              parent: { anyOf: [{ $ref: "#/components/schemas/Node" }, { type: "null" }] },
              children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
              odd: { $ref: "#/components/schemas/A" },
            },
          },
          A: { $ref: "#/components/schemas/B" },
          B: { $ref: "#/components/schemas/A" },
        },
        responses: { Loop: { $ref: "#/components/responses/Loop" } },
      },
    };
    const rendered = render(document);
    const ok = textOf(part(rendered, "data-status", "200"));
    expect(ok).toContain("name required string");
    expect(ok).toContain("parent optional Node or null");
    expect(ok).toContain("children optional array of Node");
    expect(ok).toContain("odd optional A");
    // Node is laid out once: its own fields are not expanded inside themselves.
    expect(ok).not.toContain("parent.name");
    expect(ok).not.toContain("children[].name");
    expect(textOf(part(rendered, "data-schema", "Node"))).toContain(
      "Node object Field Type Description name required string parent optional Node or null",
    );
    expect(textOf(rendered)).toContain("400: not described");
    expect(textOf(rendered)).toContain("404: not described");
  });
});

describe("the document's descriptions", () => {
  it("render a little Markdown as elements: headings, bold, safe links; never raw HTML", () => {
    const rendered = render({
      info: {
        title: "Prose",
        description:
          "## Retries\n\nSee **the guide** at [the guide](/docs/guide) or [Stripe](https://stripe.com), not [this](javascript:void).\n\n<script>alert(1)</script>",
      },
    });
    expect(rendered).toContain('<p class="pt-2 font-semibold text-slate-900">Retries</p>');
    expect(rendered).toContain('<strong class="font-semibold text-slate-900">the guide</strong>');
    expect(rendered).toContain('href="/docs/guide"');
    expect(rendered).toContain('href="https://stripe.com"');
    expect(rendered).not.toContain("javascript:");
    expect(rendered).not.toContain("<script>");
    expect(textOf(rendered)).toContain("not this.");
  });
});
