import { resolve } from "./resolve";
import {
  HTTP_METHODS,
  type HttpMethod,
  type OpenApiDocument,
  type Operation,
  type Parameter,
  type SecurityScheme,
} from "./types";

export interface OperationEntry {
  /** The anchor of its section: the operationId, or one made from method and path. */
  id: string;
  method: HttpMethod;
  path: string;
  operation: Operation;
  /** The path item's parameters and the operation's, resolved; the operation's win by name and place. */
  parameters: Parameter[];
}

export interface TagGroup {
  name: string;
  description?: string;
  operations: OperationEntry[];
}

/** The page accepts any JSON object as a document and reads each part defensively. */
export function asDocument(value: object): OpenApiDocument {
  return value as OpenApiDocument;
}

function anchorOf(method: string, path: string): string {
  return `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

/** Every operation of the document, in the document's order. */
export function listOperations(document: OpenApiDocument): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    const methods = Object.keys(pathItem).filter((key): key is HttpMethod =>
      (HTTP_METHODS as readonly string[]).includes(key),
    );
    for (const method of methods) {
      const operation = pathItem[method];
      if (!operation) continue;
      const byKey = new Map<string, Parameter>();
      for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
        const resolved = resolve<Parameter>(document, parameter)?.value;
        if (resolved?.name) byKey.set(`${resolved.in}:${resolved.name}`, resolved);
      }
      entries.push({
        id: operation.operationId ?? anchorOf(method, path),
        method,
        path,
        operation,
        parameters: [...byKey.values()],
      });
    }
  }
  return entries;
}

/** Operations under their first tag: the document's tags in order, then any others, then untagged ones. */
export function groupByTag(document: OpenApiDocument): TagGroup[] {
  const groups = new Map<string, TagGroup>();
  for (const tag of document.tags ?? [])
    groups.set(tag.name, { name: tag.name, description: tag.description, operations: [] });
  for (const entry of listOperations(document)) {
    const name = entry.operation.tags?.[0] ?? "Other";
    const group = groups.get(name) ?? { name, operations: [] };
    group.operations.push(entry);
    groups.set(name, group);
  }
  return [...groups.values()].filter((group) => group.operations.length > 0);
}

/** The anchor of a tag's section. */
export function tagAnchor(name: string): string {
  return `tag-${name.replace(/[^A-Za-z0-9]+/g, "-")}`;
}

/** The document's security schemes, resolved, by name. */
export function securitySchemesOf(document: OpenApiDocument): { name: string; scheme: SecurityScheme }[] {
  return Object.entries(document.components?.securitySchemes ?? {}).flatMap(([name, scheme]) => {
    const resolved = resolve<SecurityScheme>(document, scheme)?.value;
    return resolved ? [{ name, scheme: resolved }] : [];
  });
}
