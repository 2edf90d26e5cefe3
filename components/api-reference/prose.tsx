// biome-ignore-all lint/suspicious/noArrayIndexKey: text split once on the server; its parts never move.
import type { ReactNode } from "react";

/** Only links a reader can follow safely: this site's paths, anchors, and http(s) pages. */
function safeHref(href: string): string | undefined {
  return /^(\/|#|https?:\/\/)/.test(href) ? href : undefined;
}

/** `code`, **bold** and [links](/path) inside a line of the document's text, as React nodes (never as HTML). */
export function Inline({ text }: { text: string }): ReactNode {
  return text.split(/(`[^`]+`|\*\*[^*]+\*\*|\[[^\]]+\]\([^)\s]+\))/g).map((part, index) => {
    if (part.startsWith("`") && part.endsWith("`") && part.length > 1) {
      return (
        <code
          key={index}
          className="rounded bg-slate-100 px-1 font-mono text-[0.9em] text-slate-800 [overflow-wrap:anywhere]"
        >
          {part.slice(1, -1)}
        </code>
      );
    }
    if (part.startsWith("**") && part.endsWith("**") && part.length > 4) {
      return (
        <strong key={index} className="font-semibold text-slate-900">
          {part.slice(2, -2)}
        </strong>
      );
    }
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
    if (link) {
      const href = safeHref(link[2] ?? "");
      return href ? (
        <a key={index} href={href} className="font-medium text-indigo-700 hover:underline">
          {link[1]}
        </a>
      ) : (
        link[1]
      );
    }
    return part;
  });
}

/**
 * A description from the document: plain text with a little Markdown in it. Blank lines part
 * paragraphs, lines starting "- " make a list, a line starting "#" is a heading, and backticks,
 * ** and [text](link) work inside a line.
 */
export function Prose({ text, className = "" }: { text: string | undefined; className?: string }) {
  if (!text) return null;
  const blocks = text.trim().split(/\n\s*\n/);
  return (
    <div className={`space-y-3 leading-relaxed text-slate-700 ${className}`}>
      {blocks.map((block, index) => {
        const lines = block.split("\n");
        if (lines.every((line) => /^\s*[-*]\s/.test(line))) {
          return (
            <ul key={index} className="list-disc space-y-1 pl-6">
              {lines.map((line, i) => (
                <li key={i}>
                  <Inline text={line.replace(/^\s*[-*]\s/, "")} />
                </li>
              ))}
            </ul>
          );
        }
        if (lines.length === 1 && /^#{1,6}\s/.test(block)) {
          return (
            <p key={index} className="pt-2 font-semibold text-slate-900">
              <Inline text={block.replace(/^#{1,6}\s+/, "")} />
            </p>
          );
        }
        return (
          <p key={index}>
            <Inline text={lines.join(" ")} />
          </p>
        );
      })}
    </div>
  );
}
