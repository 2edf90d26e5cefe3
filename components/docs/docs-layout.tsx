import type { ReactNode } from "react";
import { PhoneMenu } from "./phone-menu";

/**
 * A long documentation page with its contents always at hand: at 1024 px and wider, a list beside
 * the page that stays in view while it scrolls; narrower, a "Contents" bar at the top of the screen
 * that opens the same list over the page. Only one of the two is shown (and so in the accessibility
 * tree) at any width.
 */
export function DocsLayout({ label, contents, children }: { label: string; contents: ReactNode; children: ReactNode }) {
  return (
    <div className="lg:grid lg:grid-cols-[17rem_minmax(0,1fr)] lg:gap-12">
      <div className="sticky top-0 z-20 -mx-4 mb-8 border-b border-slate-200 bg-slate-50 px-4 sm:-mx-6 sm:px-6 lg:hidden">
        <PhoneMenu summary="Contents">
          <nav
            aria-label={label}
            className="absolute inset-x-0 top-full max-h-[70dvh] overflow-y-auto border-b border-slate-200 bg-white px-2 py-3 text-sm shadow-lg sm:px-4"
          >
            {contents}
          </nav>
        </PhoneMenu>
      </div>
      <nav
        aria-label={label}
        className="hidden text-sm lg:sticky lg:top-6 lg:block lg:max-h-[calc(100dvh-3rem)] lg:self-start lg:overflow-y-auto lg:pb-6"
      >
        <h2 className="mb-2 px-2 font-semibold text-slate-900">Contents</h2>
        {contents}
      </nav>
      <div className="min-w-0">{children}</div>
    </div>
  );
}
