import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";

/** History's ways between pages: back to the newest (when on an older one) and on to the next, older one. */
export function HistoryPagesNav({
  cursor,
  newestHref,
  nextHref,
}: {
  cursor: string | undefined;
  newestHref: string;
  nextHref: string | null;
}) {
  if (!(cursor || nextHref)) return null;
  return (
    <nav aria-label="Pages" className="flex items-center justify-between border-t border-slate-100 pt-4">
      {cursor ? (
        <Link href={newestHref} className={buttonClasses("ghost")}>
          ← Newest
        </Link>
      ) : (
        <span />
      )}
      {nextHref && (
        <Link href={nextHref} className={buttonClasses("secondary")}>
          Next page →
        </Link>
      )}
    </nav>
  );
}
