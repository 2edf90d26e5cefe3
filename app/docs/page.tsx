import type { Metadata } from "next";
import Link from "next/link";
import { ApiReference } from "@/components/api-reference/api-reference";
import { ApiReferenceContents } from "@/components/api-reference/contents";
import { DocsLayout } from "@/components/docs/docs-layout";
import { openApiDocument } from "@/lib/openapi/document";

export const metadata: Metadata = { title: "API reference · Points" };

// Rendered once at build time from the OpenAPI document: the page has no data of its own.
export const dynamic = "force-static";

export default function ApiReferencePage() {
  const document = openApiDocument();
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
