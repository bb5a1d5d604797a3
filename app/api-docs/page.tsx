import type { Metadata } from "next";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { Section } from "@/components/ui/section";
import { env } from "@/lib/env";
import { openApiDocument } from "@/lib/openapi/document";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API" };

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  security: unknown[];
  parameters?: { name: string; in: string; required: boolean; description: string }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
}

const schemaName = (schema: { $ref?: string } | undefined) => schema?.$ref?.split("/").at(-1) ?? null;

function SchemaLink({ schema }: { schema: { $ref?: string } | undefined }) {
  const name = schemaName(schema);
  return name ? <a href={`#schema-${name}`}>{name}</a> : <span>{JSON.stringify(schema)}</span>;
}

/** The OpenAPI document (GET /api/openapi.json) for people: every operation, then every schema. */
export default function ApiDocsPage() {
  const doc = openApiDocument(env().ARENA_PUBLIC_URL) as Json & {
    info: { description: string; version: string };
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Json> };
  };
  return (
    <div className="space-y-10">
      <div className="max-w-prose space-y-2">
        <h1 className="text-2xl font-semibold">The arena&apos;s API</h1>
        <p className="text-slate-700">{doc.info.description}</p>
        <p className="text-slate-700">
          Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1, version {doc.info.version}
          ). Token routes take <code>Authorization: Bearer spa_...</code>. Every error answers{" "}
          <code>{'{"error": {"code": "...", "message": "..."}}'}</code>: see <a href="#schema-Error">Error</a>. The{" "}
          <a href="/guide">guide</a> shows the clients that speak it.
        </p>
      </div>
      <Section id="operations" title="Operations">
        <div className="mt-4 space-y-8">
          {Object.entries(doc.paths).flatMap(([path, methods]) =>
            Object.entries(methods).map(([method, op]) => (
              <article key={op.operationId} id={op.operationId} className="rounded border border-slate-200 p-4">
                <h3 className="font-mono text-base font-semibold">
                  {method.toUpperCase()} {path}
                </h3>
                <p className="mt-1">
                  {op.summary} · {op.security.length > 0 ? "token" : "public"}
                </p>
                {op.description ? <p className="mt-1 max-w-prose text-sm text-slate-700">{op.description}</p> : null}
                {op.parameters?.length ? (
                  <ul className="mt-2 text-sm">
                    {op.parameters.map((p) => (
                      <li key={`${p.in}-${p.name}`}>
                        <code>{p.name}</code> ({p.in}
                        {p.required ? ", required" : ""}): {p.description}
                      </li>
                    ))}
                  </ul>
                ) : null}
                {op.requestBody ? (
                  <p className="mt-2 text-sm">
                    body: <SchemaLink schema={op.requestBody.content["application/json"]?.schema} />
                  </p>
                ) : null}
                <table className="mt-2 text-sm [overflow-wrap:anywhere]">
                  <caption className="sr-only">
                    {method.toUpperCase()} {path} responses
                  </caption>
                  <tbody>
                    {Object.entries(op.responses).map(([status, response]) => {
                      const [type, media] = Object.entries(response.content ?? {})[0] ?? [];
                      return (
                        <tr key={status}>
                          <th scope="row" className="pr-3 text-left font-mono">
                            {status}
                          </th>
                          <td className="pr-3">{response.description}</td>
                          <td>{type === "application/json" ? <SchemaLink schema={media?.schema} /> : (type ?? "")}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </article>
            )),
          )}
        </div>
      </Section>
      <Section id="schemas" title="Schemas">
        <div className="mt-4 space-y-6">
          {Object.entries(doc.components.schemas).map(([name, schema]) => (
            <article key={name} id={`schema-${name}`}>
              <h3 className="font-semibold">{name}</h3>
              <ScrollRegion label={`The ${name} schema`} scroll="both" className="mt-1 max-h-96 rounded bg-slate-900">
                <pre className="p-3 text-xs text-slate-100">
                  <code>{JSON.stringify(schema, null, 2)}</code>
                </pre>
              </ScrollRegion>
            </article>
          ))}
        </div>
      </Section>
    </div>
  );
}
