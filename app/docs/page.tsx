import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { ApiReference } from "@/components/api-reference/api-reference";
import { ApiReferenceContents } from "@/components/api-reference/contents";
import { DocsLayout } from "@/components/docs/docs-layout";
import { deploymentUrl } from "@/lib/dashboard/deployment-url";
import { openApiDocument } from "@/lib/openapi/document";

export const metadata: Metadata = { title: "API reference · Points" };

/**
 * The OpenAPI document, with this deployment's own URL (AUTH_URL, else the request's host) as the
 * base URL its curl examples use, whichever host serves it.
 */
export default async function ApiReferencePage() {
  const requestHeaders = await headers();
  const document = {
    ...openApiDocument(),
    servers: [{ url: deploymentUrl((name) => requestHeaders.get(name)), description: "This service" }],
  };
  return (
    <main className="mx-auto max-w-7xl px-4 py-10 text-slate-800 sm:px-6">
      <p className="mb-6 flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <Link href="/" className="font-medium text-indigo-700 hover:underline">
          ← Points
        </Link>
        <Link href="/docs/guide" className="font-medium text-indigo-700 hover:underline">
          API guide
        </Link>
        <a href="/v3/openapi.json" className="font-medium text-indigo-700 hover:underline">
          OpenAPI document (JSON)
        </a>
      </p>
      <DocsLayout label="API reference contents" contents={<ApiReferenceContents document={document} />}>
        <ApiReference document={document} guideHref="/docs/guide" />
      </DocsLayout>
    </main>
  );
}
