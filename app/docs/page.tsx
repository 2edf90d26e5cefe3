import type { Metadata } from "next";
import Link from "next/link";
import { ApiReference } from "@/components/api-reference/api-reference";
import { openApiDocument } from "@/lib/openapi/document";

export const metadata: Metadata = { title: "API reference · Points" };

// Rendered once at build time from the OpenAPI document: the page has no data of its own.
export const dynamic = "force-static";

export default function ApiReferencePage() {
  return (
    <main className="mx-auto max-w-4xl px-4 py-10 text-slate-800 sm:px-6">
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
      <ApiReference document={openApiDocument()} guideHref="/docs/guide" />
    </main>
  );
}
