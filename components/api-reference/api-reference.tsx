import { ANCHOR_MARGIN } from "@/components/docs/styles";
import { baseUrlOf } from "./curl";
import { OperationView } from "./operation-view";
import { asDocument, groupByTag, securitySchemesOf, tagAnchor } from "./operations";
import { Prose } from "./prose";
import { layOutSchema, listedSchemaNames } from "./schema";
import { SchemaView, schemaAnchor } from "./schema-view";
import type { OpenApiDocument } from "./types";

function Authentication({ document }: { document: OpenApiDocument }) {
  const schemes = securitySchemesOf(document);
  if (schemes.length === 0) return null;
  return (
    <section id="authentication" aria-labelledby="authentication-title" className={ANCHOR_MARGIN}>
      <h2 id="authentication-title" className="text-2xl font-semibold text-slate-900">
        Authentication
      </h2>
      <div className="mt-3 space-y-3">
        {schemes.map(({ name, scheme }) => (
          <div key={name}>
            {scheme.type === "http" && scheme.scheme?.toLowerCase() === "bearer" ? (
              <p className="text-slate-700">
                Send the key in the <code className="font-mono">Authorization</code> header:{" "}
                <code className="rounded bg-slate-100 px-1 font-mono">Authorization: Bearer &lt;key&gt;</code>.
              </p>
            ) : scheme.type === "apiKey" ? (
              <p className="text-slate-700">
                Send the key in the <code className="font-mono">{scheme.name}</code> {scheme.in}.
              </p>
            ) : (
              <p className="text-slate-700">
                <code className="font-mono">{name}</code>: {scheme.type}
              </p>
            )}
            <Prose text={scheme.description} className="mt-2" />
          </div>
        ))}
      </div>
    </section>
  );
}

/** Each object schema of components.schemas once, for fields elsewhere to link to. */
function Schemas({ document, names }: { document: OpenApiDocument; names: string[] }) {
  if (names.length === 0) return null;
  return (
    <section id="schemas" aria-labelledby="schemas-title" className={`space-y-8 ${ANCHOR_MARGIN}`}>
      <h2 id="schemas-title" className="text-2xl font-semibold text-slate-900">
        Schemas
      </h2>
      {names.map((name) => (
        <section
          key={name}
          id={schemaAnchor(name)}
          aria-labelledby={`${schemaAnchor(name)}-title`}
          className={`${ANCHOR_MARGIN} border-t border-slate-200 pt-6`}
          data-schema={name}
        >
          <h3 id={`${schemaAnchor(name)}-title`} className="mb-2 font-mono text-lg font-semibold text-slate-900">
            {name}
          </h3>
          <SchemaView
            layout={layOutSchema(document, {
              $ref: `#/components/schemas/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`,
            })}
            named
          />
        </section>
      ))}
    </section>
  );
}

/**
 * An OpenAPI 3.1 document as a reference page, rendered on the server with no client code: the
 * introduction, authentication, then each operation under its tag, then the schemas. Its table of
 * contents is ApiReferenceContents, for the page to place (components/docs/docs-layout.tsx).
 */
export function ApiReference({ document: value, guideHref }: { document: object; guideHref?: string }) {
  const document = asDocument(value);
  const groups = groupByTag(document);
  return (
    <div className="space-y-12">
      <header className="space-y-4">
        <h1 className="text-3xl font-semibold tracking-tight text-slate-900">
          {document.info?.title ?? "API reference"}
        </h1>
        <p className="text-sm text-slate-500">
          {document.info?.version ? <>Version {document.info.version} · </> : null}
          OpenAPI {document.openapi ?? "3.1"} · Base URL{" "}
          <code className="font-mono [overflow-wrap:anywhere]">{baseUrlOf(document)}</code>
        </p>
        <Prose text={document.info?.description} />
        {guideHref ? (
          <p className="text-slate-700">
            The{" "}
            <a href={guideHref} className="font-medium text-indigo-700 hover:underline">
              API guide
            </a>{" "}
            tells the same API as a walkthrough: the order of checks, every outcome, and how to retry safely.
          </p>
        ) : null}
      </header>

      <Authentication document={document} />

      {groups.map((group) => (
        <section
          key={group.name}
          id={tagAnchor(group.name)}
          aria-labelledby={`${tagAnchor(group.name)}-title`}
          className={`space-y-8 ${ANCHOR_MARGIN}`}
        >
          <div>
            <h2 id={`${tagAnchor(group.name)}-title`} className="text-2xl font-semibold text-slate-900">
              {group.name}
            </h2>
            <Prose text={group.description} className="mt-2" />
          </div>
          {group.operations.map((entry) => (
            <OperationView key={entry.id} entry={entry} document={document} />
          ))}
        </section>
      ))}

      <Schemas document={document} names={listedSchemaNames(document)} />
    </div>
  );
}
