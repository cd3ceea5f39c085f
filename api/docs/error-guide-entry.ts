//! One entry of the error guide (error-guide.ts, tool-error-guide.ts): what a code means to a client.

export interface ErrorGuide {
  /** When the service answers with this code (the table of contracts/errors.ts, in a client's words). Markdown-free. */
  when: string;
  /** What the client should do next. */
  action: string;
  /** Problem members beyond the standard ones, with their meaning. */
  members?: Readonly<Record<string, string>>;
  /** Response headers that come with this code. */
  headers?: Readonly<Record<string, string>>;
  /** A realistic answer, shown in the OpenAPI document: the `detail` and any extra members. */
  example: { detail: string; members?: Readonly<Record<string, unknown>> };
}
