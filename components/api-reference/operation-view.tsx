import type { ReactNode } from "react";
import { ANCHOR_MARGIN } from "@/components/docs/styles";
import { curlCommand, examplesOf } from "./curl";
import type { OperationEntry } from "./operations";
import { Inline, Prose } from "./prose";
import { isReference, refName, resolve } from "./resolve";
import { enumValues, isListedSchema, layOutSchema, typeLabel } from "./schema";
import { EnumValues, SchemaView, schemaAnchor } from "./schema-view";
import type { Header, OpenApiDocument, RequestBody, Response, Schema } from "./types";

const REASONS: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted",
  "204": "No Content",
  "400": "Bad Request",
  "401": "Unauthorized",
  "402": "Payment Required",
  "403": "Forbidden",
  "404": "Not Found",
  "405": "Method Not Allowed",
  "409": "Conflict",
  "413": "Content Too Large",
  "422": "Unprocessable Content",
  "429": "Too Many Requests",
  "500": "Internal Server Error",
  "502": "Bad Gateway",
  "503": "Service Unavailable",
};

const METHOD_TONES: Record<string, string> = {
  get: "bg-emerald-100 text-emerald-800",
  post: "bg-indigo-100 text-indigo-800",
  put: "bg-amber-100 text-amber-800",
  patch: "bg-amber-100 text-amber-800",
  delete: "bg-rose-100 text-rose-800",
};

function statusTone(status: string): string {
  if (status.startsWith("2")) return "text-emerald-700";
  if (status.startsWith("4")) return "text-amber-700";
  if (status.startsWith("5")) return "text-rose-700";
  return "text-slate-700";
}

function MethodBadge({ method }: { method: string }) {
  return (
    <span
      className={`inline-block rounded px-2 py-0.5 font-mono text-sm font-semibold ${METHOD_TONES[method] ?? "bg-slate-100 text-slate-800"}`}
    >
      {method.toUpperCase()}
    </span>
  );
}

function CodeBlock({ code }: { code: string }) {
  return (
    <pre
      // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls sideways; a keyboard must reach it to scroll it.
      tabIndex={0}
      className="overflow-x-auto rounded-lg bg-slate-900 p-4 font-mono text-sm leading-relaxed text-slate-100"
    >
      <code>{code}</code>
    </pre>
  );
}

function SubHeading({ children }: { children: ReactNode }) {
  return <h4 className="mt-6 mb-2 text-sm font-semibold uppercase tracking-wide text-slate-500">{children}</h4>;
}

function Parameters({ entry, document }: { entry: OperationEntry; document: OpenApiDocument }) {
  if (entry.parameters.length === 0) return null;
  return (
    <>
      <SubHeading>Parameters</SubHeading>
      <div
        // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls sideways on a phone; a keyboard must reach it to scroll it.
        tabIndex={0}
        className="overflow-x-auto rounded-lg border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <table className="w-full text-left text-sm sm:min-w-[32rem]">
          <thead className="border-b border-slate-200 bg-slate-50 text-slate-600 max-sm:sr-only">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                Name
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                In
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Type
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Description
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 max-sm:block">
            {entry.parameters.map((parameter) => (
              <tr
                key={`${parameter.in}:${parameter.name}`}
                data-parameter={parameter.name}
                className="align-top max-sm:block max-sm:py-2"
              >
                <td className="px-3 py-2 max-sm:block max-sm:py-0.5">
                  <code className="font-mono font-medium whitespace-nowrap text-slate-900">{parameter.name}</code>
                  {parameter.required ? (
                    <span className="ml-2 rounded bg-rose-50 px-1.5 py-0.5 text-xs font-medium text-rose-700">
                      required
                    </span>
                  ) : (
                    <span className="ml-2 text-xs text-slate-500">optional</span>
                  )}
                </td>
                <td className="px-3 py-2 text-slate-600 max-sm:block max-sm:py-0.5">
                  <span className="sm:hidden">in </span>
                  {parameter.in}
                </td>
                <td className="px-3 py-2 font-mono text-slate-600 max-sm:block max-sm:py-0.5">
                  {typeLabel(document, parameter.schema)}
                </td>
                <td className="px-3 py-2 text-slate-700 max-sm:block max-sm:py-0.5">
                  {parameter.description ? <Inline text={parameter.description} /> : null}
                  <EnumValues values={enumValues(document, parameter.schema)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function RequestBodyView({ entry, document }: { entry: OperationEntry; document: OpenApiDocument }) {
  const body = resolve<RequestBody>(document, entry.operation.requestBody)?.value;
  if (!body) return null;
  const [mediaType, media] = Object.entries(body.content ?? {})[0] ?? [];
  return (
    <>
      <SubHeading>
        Request body{mediaType ? <span className="ml-2 font-mono normal-case tracking-normal">{mediaType}</span> : null}
        {body.required ? <span className="ml-2 normal-case tracking-normal text-rose-700">required</span> : null}
      </SubHeading>
      <Prose text={body.description} className="mb-2 text-sm" />
      <SchemaView layout={layOutSchema(document, media?.schema)} />
    </>
  );
}

/**
 * A success's body is laid out in place. An error's body is most often the one shared envelope:
 * when it is a named schema, it links to its entry under Schemas instead of repeating it for
 * every status, and the examples show each error's code.
 */
function ResponseBody({
  status,
  document,
  schema,
}: {
  status: string;
  document: OpenApiDocument;
  schema: Schema | undefined;
}) {
  const name =
    schema && isReference(schema) && schema.$ref.startsWith("#/components/schemas/") ? refName(schema.$ref) : undefined;
  if (status.startsWith("2") || !name || !isListedSchema(document, name))
    return <SchemaView layout={layOutSchema(document, schema)} />;
  const description = resolve<Schema>(document, schema)?.value.description;
  return (
    <p className="text-sm text-slate-600">
      <a href={`#${schemaAnchor(name)}`} className="font-mono text-indigo-700 hover:underline">
        {name}
      </a>
      {description ? (
        <>
          {" · "}
          <Inline text={description} />
        </>
      ) : null}
    </p>
  );
}

function ResponseView({
  status,
  response,
  document,
  name,
}: {
  status: string;
  response: Response;
  document: OpenApiDocument;
  name?: string;
}) {
  const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
  const headers = Object.entries(response.headers ?? {}).flatMap(([headerName, header]) => {
    const resolved = resolve<Header>(document, header)?.value;
    return resolved ? [{ name: headerName, header: resolved }] : [];
  });
  return (
    <details
      className="group rounded-lg border border-slate-200 bg-white"
      data-status={status}
      open={status.startsWith("2")}
    >
      <summary className="flex cursor-pointer flex-wrap items-baseline gap-x-3 gap-y-1 px-4 py-3">
        <span className={`font-mono font-semibold ${statusTone(status)}`}>
          {status} {REASONS[status] ?? ""}
        </span>
        <span className="text-slate-700">
          <Inline text={response.description ?? ""} />
        </span>
        {name ? <span className="font-mono text-sm text-slate-500">{name}</span> : null}
      </summary>
      <div className="space-y-3 border-t border-slate-100 px-4 py-3">
        {headers.length > 0 ? (
          <ul className="space-y-1 text-sm text-slate-700">
            {headers.map(({ name: headerName, header }) => (
              <li key={headerName}>
                Header <code className="font-mono font-medium text-slate-900">{headerName}</code>
                {header.schema ? (
                  <span className="font-mono text-slate-500"> ({typeLabel(document, header.schema)})</span>
                ) : null}
                {header.description ? (
                  <>
                    {": "}
                    <Inline text={header.description} />
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        ) : null}
        {mediaType ? <ResponseBody status={status} document={document} schema={media?.schema} /> : null}
        {examplesOf(document, media).map((example) => (
          <div key={example.name}>
            <p className="mb-1 text-sm font-medium text-slate-700">Example: {example.summary ?? example.name}</p>
            <CodeBlock code={JSON.stringify(example.value, null, 2)} />
          </div>
        ))}
      </div>
    </details>
  );
}

/** One operation: its method and path, description, parameters, body, a curl example, and every response. */
export function OperationView({ entry, document }: { entry: OperationEntry; document: OpenApiDocument }) {
  const { operation } = entry;
  const responses = Object.entries(operation.responses ?? {});
  return (
    <section
      id={entry.id}
      aria-labelledby={`${entry.id}-title`}
      className={`${ANCHOR_MARGIN} border-t border-slate-200 pt-8`}
      data-operation={entry.id}
    >
      <h3 id={`${entry.id}-title`} className="text-xl font-semibold text-slate-900">
        {operation.summary ?? `${entry.method.toUpperCase()} ${entry.path}`}
      </h3>
      <p className="mt-2 flex flex-wrap items-center gap-2">
        <MethodBadge method={entry.method} />
        <code className="font-mono text-base text-slate-900 [overflow-wrap:anywhere]">{entry.path}</code>
        {operation.deprecated ? <span className="text-sm text-rose-700">deprecated</span> : null}
      </p>
      <Prose text={operation.description} className="mt-3" />
      <Parameters entry={entry} document={document} />
      <RequestBodyView entry={entry} document={document} />
      <SubHeading>Example request</SubHeading>
      <CodeBlock code={curlCommand(document, entry)} />
      {responses.length > 0 ? <SubHeading>Responses</SubHeading> : null}
      <div className="space-y-2">
        {responses.map(([status, response]) => {
          const resolved = resolve<Response>(document, response);
          return resolved ? (
            <ResponseView
              key={status}
              status={status}
              response={resolved.value}
              document={document}
              name={resolved.name}
            />
          ) : (
            <p key={status} className="text-sm text-slate-600">
              {status}: not described
            </p>
          );
        })}
      </div>
    </section>
  );
}
