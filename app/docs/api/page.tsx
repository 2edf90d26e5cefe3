// biome-ignore-all lint/suspicious/noArrayIndexKey: a static document rendered once; its parts never move.
import fs from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";

export const metadata: Metadata = { title: "API documentation · Points" };

/**
 * docs/api.md, the API's description kept in the repository, rendered for people. It reads the
 * file at build time: a small Markdown subset (headings, paragraphs, lists, tables, code) is all
 * that file uses.
 */
export default function ApiDocumentationPage() {
  const markdown = fs.readFileSync(path.join(process.cwd(), "docs", "api.md"), "utf8");
  return (
    <main className="mx-auto max-w-3xl px-6 py-12 text-slate-800">
      <p className="mb-6 text-sm">
        <Link href="/" className="font-medium text-indigo-700 hover:underline">
          ← Points
        </Link>
      </p>
      {renderMarkdown(markdown)}
    </main>
  );
}

function inline(text: string): ReactNode[] {
  return text.split(/(`[^`]+`|\*\*[^*]+\*\*)/g).map((part, index) => {
    if (part.startsWith("`")) return <code key={index} className="rounded bg-slate-100 px-1 font-mono text-[0.85em]">{part.slice(1, -1)}</code>;
    if (part.startsWith("**")) return <strong key={index} className="font-semibold text-slate-900">{part.slice(2, -2)}</strong>;
    return part;
  });
}

function renderMarkdown(markdown: string): ReactNode[] {
  const lines = markdown.split("\n");
  const out: ReactNode[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    const key = out.length;
    if (line.startsWith("```")) {
      const code: string[] = [];
      for (index += 1; index < lines.length && !(lines[index] ?? "").startsWith("```"); index += 1) code.push(lines[index] ?? "");
      index += 1;
      out.push(<pre key={key} className="my-4 overflow-x-auto rounded-lg bg-slate-900 p-4 text-sm text-slate-100">{code.join("\n")}</pre>);
    } else if (line.startsWith("#")) {
      const level = line.match(/^#+/)?.[0].length ?? 1;
      const text = line.replace(/^#+\s*/, "");
      out.push(
        level === 1 ? <h1 key={key} className="text-3xl font-semibold tracking-tight">{text}</h1>
        : level === 2 ? <h2 key={key} className="mt-10 text-xl font-semibold">{inline(text)}</h2>
        : <h3 key={key} className="mt-6 font-semibold">{inline(text)}</h3>,
      );
      index += 1;
    } else if (line.startsWith("|")) {
      const rows: string[][] = [];
      for (; index < lines.length && (lines[index] ?? "").startsWith("|"); index += 1) {
        const cells = (lines[index] ?? "").slice(1, -1).split("|").map((cell) => cell.trim());
        if (!cells.every((cell) => /^-+$/.test(cell))) rows.push(cells);
      }
      const [head = [], ...body] = rows;
      out.push(
        <div key={key} className="my-4 overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 text-slate-500"><tr>{head.map((cell, i) => <th key={i} className="py-1 pr-4 font-medium">{inline(cell)}</th>)}</tr></thead>
            <tbody className="divide-y divide-slate-100">{body.map((row, r) => <tr key={r}>{row.map((cell, i) => <td key={i} className="py-1 pr-4 align-top">{inline(cell)}</td>)}</tr>)}</tbody>
          </table>
        </div>,
      );
    } else if (/^(\d+\.|-)\s/.test(line)) {
      const items: string[] = [];
      const ordered = /^\d+\./.test(line);
      for (; index < lines.length && /^(\d+\.|-)\s|^\s{2,}\S/.test(lines[index] ?? ""); index += 1) {
        const current = lines[index] ?? "";
        if (/^\s{2,}\S/.test(current)) items[items.length - 1] += ` ${current.trim()}`;
        else items.push(current.replace(/^(\d+\.|-)\s/, ""));
      }
      const List = ordered ? "ol" : "ul";
      out.push(<List key={key} className={`my-3 space-y-1 pl-6 ${ordered ? "list-decimal" : "list-disc"}`}>{items.map((item, i) => <li key={i}>{inline(item)}</li>)}</List>);
    } else if (line.trim() === "") {
      index += 1;
    } else {
      const paragraph: string[] = [];
      for (; index < lines.length && (lines[index] ?? "").trim() !== "" && !/^(#|\||```|\d+\.\s|-\s)/.test(lines[index] ?? ""); index += 1) paragraph.push(lines[index] ?? "");
      out.push(<p key={key} className="my-3 leading-relaxed">{inline(paragraph.join(" "))}</p>);
    }
  }
  return out;
}
