import type { GuideHeading } from "@/lib/openapi/markdown";
import { TOC_LINK } from "./styles";

interface Chapter {
  heading: GuideHeading;
  sections: GuideHeading[];
}

/** Each ## heading with the ### headings under it; the title (#) and deeper headings are left out. */
function chaptersOf(headings: GuideHeading[]): Chapter[] {
  const chapters: Chapter[] = [];
  for (const heading of headings) {
    if (heading.level === 2) chapters.push({ heading, sections: [] });
    else if (heading.level === 3) chapters.at(-1)?.sections.push(heading);
  }
  return chapters;
}

/** A guide's table of contents, from its headings (lib/openapi/markdown.ts). */
export function GuideContents({ headings }: { headings: GuideHeading[] }) {
  return (
    <ul className="space-y-1">
      {chaptersOf(headings).map(({ heading, sections }) => (
        <li key={heading.id}>
          <a href={`#${heading.id}`} className={TOC_LINK.section}>
            {heading.text}
          </a>
          {sections.length > 0 ? (
            <ul className="mt-0.5 mb-2 ml-2 space-y-0.5 border-l border-slate-200 pl-1">
              {sections.map((section) => (
                <li key={section.id}>
                  <a href={`#${section.id}`} className={TOC_LINK.entry}>
                    {section.text}
                  </a>
                </li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
