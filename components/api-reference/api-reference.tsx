import { baseUrlOf } from "./curl";
import { OperationView } from "./operation-view";
import { asDocument, groupByTag } from "./operations";
import { Prose } from "./prose";
import { resolve } from "./resolve";
import { isListedSchema, layOutSchema } from "./schema";
import { SchemaView, schemaAnchor } from "./schema-view";
import type { OpenApiDocument, SecurityScheme } from "./types";

function tagId(name: string): string {
  return `tag-${name.replace(/[^A-Za-z0-9]+/g, "-")}`;
}

function Authentication({ document }: { document: OpenApiDocument }) {
  const schemes = Object.entries(document.components?.securitySchemes ?? {}).flatMap(([name, scheme]) => {
    const resolved = resolve<SecurityScheme>(document, scheme)?.value;
    return resolved ? [{ name, scheme: resolved }] : [];
  });
  if (schemes.length === 0) return null;
  return (
    <section id="authentication" aria-labelledby="authentication-title" className="scroll-mt-6">
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
    <section id="schemas" aria-labelledby="schemas-title" className="space-y-8">
      <h2 id="schemas-title" className="text-2xl font-semibold text-slate-900">
        Schemas
      </h2>
      {names.map((name) => (
        <section
          key={name}
          id={schemaAnchor(name)}
          aria-labelledby={`${schemaAnchor(name)}-title`}
          className="scroll-mt-6 border-t border-slate-200 pt-6"
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
 * introduction, authentication, a table of contents, then each operation under its tag.
 */
export function ApiReference({ document: value, guideHref }: { document: object; guideHref?: string }) {
  const document = asDocument(value);
  const groups = groupByTag(document);
  const schemaNames = Object.keys(document.components?.schemas ?? {}).filter((name) => isListedSchema(document, name));
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

      <nav aria-label="API reference contents" className="rounded-lg border border-slate-200 bg-white p-4">
        <h2 className="text-base font-semibold text-slate-900">Contents</h2>
        <ul className="mt-2 space-y-3">
          <li>
            <a href="#authentication" className="text-indigo-700 hover:underline">
              Authentication
            </a>
          </li>
          {groups.map((group) => (
            <li key={group.name}>
              <a href={`#${tagId(group.name)}`} className="font-medium text-slate-900 hover:underline">
                {group.name}
              </a>
              <ul className="mt-1 space-y-1 pl-3">
                {group.operations.map((entry) => (
                  <li key={entry.id}>
                    <a href={`#${entry.id}`} className="flex flex-wrap items-baseline gap-x-2 text-sm hover:underline">
                      <span className="w-14 font-mono font-semibold text-slate-500">{entry.method.toUpperCase()}</span>
                      <span className="font-mono text-slate-900 [overflow-wrap:anywhere]">{entry.path}</span>
                      {entry.operation.summary ? (
                        <span className="text-slate-600">{entry.operation.summary}</span>
                      ) : null}
                    </a>
                  </li>
                ))}
              </ul>
            </li>
          ))}
          {schemaNames.length > 0 ? (
            <li>
              <a href="#schemas" className="font-medium text-slate-900 hover:underline">
                Schemas
              </a>
              <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-1 pl-3 text-sm">
                {schemaNames.map((name) => (
                  <li key={name}>
                    <a href={`#${schemaAnchor(name)}`} className="font-mono text-slate-900 hover:underline">
                      {name}
                    </a>
                  </li>
                ))}
              </ul>
            </li>
          ) : null}
        </ul>
      </nav>

      <Authentication document={document} />

      {groups.map((group) => (
        <section
          key={group.name}
          id={tagId(group.name)}
          aria-labelledby={`${tagId(group.name)}-title`}
          className="space-y-8"
        >
          <div>
            <h2 id={`${tagId(group.name)}-title`} className="text-2xl font-semibold text-slate-900">
              {group.name}
            </h2>
            <Prose text={group.description} className="mt-2" />
          </div>
          {group.operations.map((entry) => (
            <OperationView key={entry.id} entry={entry} document={document} />
          ))}
        </section>
      ))}

      <Schemas document={document} names={schemaNames} />
    </div>
  );
}
