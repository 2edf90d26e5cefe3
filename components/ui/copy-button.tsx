"use client";

import { useState } from "react";

/**
 * Copies `value` and says so, visibly and to screen readers, for two seconds. Its accessible name is
 * `label` and, when given, `of` ("Copy command for Visa •••• 4242"): never the value itself, which
 * may be a long command or a secret.
 */
export function CopyButton({ value, label = "Copy", of }: { value: string; label?: string; of?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Clipboard permission denied (an insecure origin, say): fall back to a hidden textarea.
      const area = document.createElement("textarea");
      area.value = value;
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <button
      type="button"
      onClick={copy}
      className="inline-flex min-w-[4.5rem] items-center justify-center rounded-md bg-white px-2.5 py-1.5 text-xs font-semibold text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      aria-label={copied ? "Copied" : of ? `${label} ${of}` : label}
    >
      <span aria-live="polite">{copied ? "Copied ✓" : label}</span>
    </button>
  );
}
