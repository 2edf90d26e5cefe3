/**
 * The parts of an OpenAPI 3.1 document the reference page reads, typed loosely on purpose: the page
 * renders whatever document it is given, so every field is optional and unknown keys are allowed.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Reference {
  $ref: string;
  summary?: string;
  description?: string;
}

/** JSON Schema 2020-12, as OpenAPI 3.1 embeds it. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  title?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  enum?: Json[];
  const?: Json;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  default?: Json;
  examples?: Json[];
  example?: Json;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  nullable?: boolean;
  deprecated?: boolean;
}

export interface Example {
  summary?: string;
  description?: string;
  value?: Json;
}

export interface MediaType {
  schema?: Schema;
  example?: Json;
  examples?: Record<string, Example | Reference>;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  schema?: Schema;
  example?: Json;
  examples?: Record<string, Example | Reference>;
}

export interface Header {
  description?: string;
  required?: boolean;
  schema?: Schema;
}

export interface RequestBody {
  description?: string;
  required?: boolean;
  content?: Record<string, MediaType>;
}

export interface Response {
  description?: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  security?: Record<string, string[]>[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody | Reference;
  responses?: Record<string, Response | Reference>;
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItem = { [method in HttpMethod]?: Operation } & {
  summary?: string;
  description?: string;
  parameters?: (Parameter | Reference)[];
};

export interface SecurityScheme {
  type?: string;
  scheme?: string;
  bearerFormat?: string;
  name?: string;
  in?: string;
  description?: string;
}

export interface OpenApiDocument {
  openapi?: string;
  info?: { title?: string; version?: string; description?: string; summary?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  security?: Record<string, string[]>[];
  paths?: Record<string, PathItem>;
  components?: {
    schemas?: Record<string, Schema>;
    responses?: Record<string, Response | Reference>;
    parameters?: Record<string, Parameter | Reference>;
    requestBodies?: Record<string, RequestBody | Reference>;
    headers?: Record<string, Header | Reference>;
    examples?: Record<string, Example | Reference>;
    securitySchemes?: Record<string, SecurityScheme | Reference>;
  };
}
