import fs from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import Link from "next/link";
import { DocsLayout } from "@/components/docs/docs-layout";
import { GuideContents } from "@/components/docs/guide-contents";
import { renderGuide } from "@/lib/openapi/markdown";
import styles from "./guide.module.css";

export const metadata: Metadata = { title: "API guide · Points" };

// docs/api.md is read and rendered once, at build time.
export const dynamic = "force-static";

/** docs/api.md, the API told to an integrator, as kept in the repository. */
export default function ApiGuidePage() {
  const markdown = fs.readFileSync(path.join(process.cwd(), "docs", "api.md"), "utf8");
  const guide = renderGuide(markdown, "api.md");
  return (
    <main className="mx-auto max-w-6xl px-4 py-10 text-slate-800 sm:px-6">
      <p className="mb-6 flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <Link href="/" className="font-medium text-indigo-700 hover:underline">
          ← Points
        </Link>
        <Link href="/docs" className="font-medium text-indigo-700 hover:underline">
          API reference
        </Link>
      </p>
      <DocsLayout label="Guide contents" contents={<GuideContents headings={guide.headings} />}>
        {/* The HTML comes from the repository's own docs/api.md, rendered at build time: no visitor's input. */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: see above; the file is ours and fixed at build. */}
        <article className={styles.guide} dangerouslySetInnerHTML={{ __html: guide.html }} />
      </DocsLayout>
    </main>
  );
}
