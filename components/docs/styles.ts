/**
 * Where an anchor's target stops when a link jumps to it: below the phone's contents bar, which
 * stays at the top of the screen; near the top on a wide screen, where the contents are beside it.
 */
export const ANCHOR_MARGIN = "scroll-mt-16 lg:scroll-mt-6";

/** A link of the contents: a section (a tag, a guide's chapter) or one inside it (an operation, a sub-heading). */
export const TOC_LINK = {
  section: "block rounded px-2 py-1 font-medium text-slate-900 hover:bg-slate-100",
  entry: "block rounded px-2 py-1 text-slate-600 hover:bg-slate-100 hover:text-slate-900",
};
