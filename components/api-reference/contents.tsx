import { TOC_LINK } from "@/components/docs/styles";
import { asDocument, groupByTag, securitySchemesOf, tagAnchor } from "./operations";
import { listedSchemaNames } from "./schema";
import { schemaAnchor } from "./schema-view";

const METHOD_TONES: Record<string, string> = {
  get: "text-emerald-700",
  post: "text-indigo-700",
  put: "text-amber-800",
  patch: "text-amber-800",
  delete: "text-rose-700",
};

/**
 * The reference's table of contents: authentication, each tag with its operations (summary, method
 * and path), and the schemas; every link to a section ApiReference renders.
 */
export function ApiReferenceContents({ document: value }: { document: object }) {
  const document = asDocument(value);
  const schemaNames = listedSchemaNames(document);
  return (
    <ul className="space-y-3">
      {securitySchemesOf(document).length > 0 ? (
        <li>
          <a href="#authentication" className={TOC_LINK.section}>
            Authentication
          </a>
        </li>
      ) : null}
      {groupByTag(document).map((group) => (
        <li key={group.name}>
          <a href={`#${tagAnchor(group.name)}`} className={TOC_LINK.section}>
            {group.name}
          </a>
          <ul className="mt-0.5 ml-2 space-y-0.5 border-l border-slate-200 pl-1">
            {group.operations.map((entry) => (
              <li key={entry.id}>
                <a href={`#${entry.id}`} className={TOC_LINK.entry}>
                  {entry.operation.summary ? <span className="block">{entry.operation.summary}</span> : null}
                  <span className="block font-mono text-[0.8125rem] [overflow-wrap:anywhere]">
                    <span className={`font-semibold ${METHOD_TONES[entry.method] ?? "text-slate-700"}`}>
                      {entry.method.toUpperCase()}
                    </span>{" "}
                    {entry.path}
                  </span>
                </a>
              </li>
            ))}
          </ul>
        </li>
      ))}
      {schemaNames.length > 0 ? (
        <li>
          <a href="#schemas" className={TOC_LINK.section}>
            Schemas
          </a>
          <ul className="mt-0.5 ml-2 space-y-0.5 border-l border-slate-200 pl-1">
            {schemaNames.map((name) => (
              <li key={name}>
                <a href={`#${schemaAnchor(name)}`} className={`${TOC_LINK.entry} font-mono`}>
                  {name}
                </a>
              </li>
            ))}
          </ul>
        </li>
      ) : null}
    </ul>
  );
}
