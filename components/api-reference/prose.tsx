// biome-ignore-all lint/suspicious/noArrayIndexKey: text split once on the server; its parts never move.
import type { ReactNode } from "react";

/** `code` spans inside a line of the document's text, as React nodes (never as HTML). */
export function Inline({ text }: { text: string }): ReactNode {
  return text.split(/(`[^`]+`)/g).map((part, index) =>
    part.startsWith("`") && part.endsWith("`") && part.length > 1 ? (
      <code key={index} className="rounded bg-slate-100 px-1 font-mono text-[0.9em] text-slate-800 [overflow-wrap:anywhere]">
        {part.slice(1, -1)}
      </code>
    ) : (
      part
    ),
  );
}

/**
 * A description from the document: plain text with a little Markdown in it. Blank lines part
 * paragraphs, lines starting "- " make a list, and backticks make code.
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
        return (
          <p key={index}>
            <Inline text={lines.join(" ")} />
          </p>
        );
      })}
    </div>
  );
}
