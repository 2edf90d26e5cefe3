"use client";

import { type ReactNode, useEffect, useRef } from "react";

/**
 * The contents on a phone: a disclosure in a bar that stays at the top of the screen, its list laid
 * over the page. Without JavaScript it is a plain <details>; with it, the list closes when one of its
 * links is followed (or on Escape, or a tap elsewhere), so it does not cover the section it led to.
 */
export function PhoneMenu({ summary, children }: { summary: string; children: ReactNode }) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const details = ref.current;
    if (!details) return;
    const close = () => {
      details.open = false;
    };
    const onClick = (event: MouseEvent) => {
      if (event.target instanceof Element && event.target.closest("a")) close();
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !details.open) return;
      close();
      details.querySelector("summary")?.focus();
    };
    const onPointerDown = (event: PointerEvent) => {
      if (details.open && event.target instanceof Node && !details.contains(event.target)) close();
    };
    details.addEventListener("click", onClick);
    details.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    // For the tests: the list now closes by itself (before this, a tap on a link leaves it open).
    details.dataset.enhanced = "true";
    return () => {
      details.removeEventListener("click", onClick);
      details.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
    };
  }, []);
  return (
    <details ref={ref} className="group" data-phone-menu>
      <summary className="flex min-h-11 cursor-pointer list-none items-center justify-between gap-2 text-sm font-medium text-slate-900 [&::-webkit-details-marker]:hidden">
        {summary}
        <svg
          aria-hidden="true"
          viewBox="0 0 20 20"
          className="size-5 text-slate-500 transition-transform group-open:rotate-180"
          fill="currentColor"
        >
          <path d="M5.23 7.21a.75.75 0 0 1 1.06.02L10 11.17l3.71-3.94a.75.75 0 1 1 1.08 1.04l-4.25 4.5a.75.75 0 0 1-1.08 0l-4.25-4.5a.75.75 0 0 1 .02-1.06Z" />
        </svg>
      </summary>
      {children}
    </details>
  );
}
