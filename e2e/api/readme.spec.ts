import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, type FixtureOrganization, test } from "../fixtures";
import { runBlock, shellBlockAfter } from "../readme";

/*
 * The README's first API call and docs/api.md's examples ("Trying it on a checkout"), run as a reader
 * would paste them (bash, curl), against this run's server. Each block runs twice, the second time in
 * a later second, so a reference that is not fresh per run would answer 200 (a replay) or 409 where
 * the documentation promises 201.
 */

/** A `.data/demo.json` as the dev server writes it, for an organisation of this run. */
function demoDir(organization: FixtureOrganization): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-readme-"));
  fs.mkdirSync(path.join(dir, ".data"));
  const demo = {
    organization_id: organization.id,
    api_key: organization.apiKey,
    payment_methods: organization.paymentMethods.map((method) => ({ id: method.id, kind: method.kind })),
  };
  fs.writeFileSync(path.join(dir, ".data", "demo.json"), JSON.stringify(demo));
  return dir;
}

const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_100 - (Date.now() % 1_000)));

test("the README's first API call answers as its comments say, every time it is run", async ({ fx, baseURL }) => {
  const block = shellBlockAfter("README.md", "With the dev server running");
  const dir = demoDir(fx.organizations.main);
  try {
    // Paid, then the same request replayed.
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual([201, 200]);
    await nextSecond();
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual([201, 200]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("docs/api.md's purchase examples answer as its comments say, every time they are run", async ({ fx, baseURL }) => {
  test.setTimeout(60_000);
  const block = shellBlockAfter("docs/api.md", "With the dev server running");
  const dir = demoDir(fx.organizations.main);
  try {
    // Paid, replayed, conflict; EUR on the Mastercard; declined; awaiting payment;
    // unresolved then resolved; invalid input; expired card.
    const expected = [201, 200, 409, 201, 402, 402, 409, 201, 422, 422];
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual(expected);
    await nextSecond();
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual(expected);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("docs/api.md's limits walkthrough answers as it says on the organisation it creates", async ({ fx, baseURL }) => {
  const block = shellBlockAfter("docs/api.md", "Then, in the other terminal");
  // The organisation docs/api.md's `npm run -s points -- org create … --json > .data/limits.json`
  // makes (its flags and JSON are tested in lib/cli/points-cli.test.ts, `npm run -s points` with
  // --json in points-cli-environment.test.ts), provisioned with the same flags by e2e/serve.ts.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-readme-limits-"));
  fs.mkdirSync(path.join(dir, ".data"));
  fs.writeFileSync(
    path.join(dir, ".data", "limits.json"),
    JSON.stringify({ api_key: fx.organizations.readmeLimits.apiKey }),
  );
  try {
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual([409, 201, 201, 201, 429]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("docs/api.md's reading examples answer as its comments say, every time they are run", async ({ fx, baseURL }) => {
  const block = shellBlockAfter("docs/api.md", "`GET /v3/points/top-ups/{id}` answers one purchase");
  const dir = demoDir(fx.organizations.main);
  try {
    // One by id, an unknown id, by reference, two pages, the filters, an invalid query.
    const expected = [200, 404, 200, 200, 200, 200, 422];
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual(expected);
    await nextSecond();
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual(expected);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("docs/api.md's OpenAPI example answers the document", ({ baseURL }) => {
  const block = shellBlockAfter("docs/api.md", "no key; feed it to a client generator");
  expect(runBlock(block, baseURL ?? "", {})).toEqual([200]);
});
