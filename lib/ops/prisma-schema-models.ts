/** Just enough of a Prisma schema to exercise every model generically: models, their fields, and enums. */

export type SchemaField = {
  name: string;
  type: string;
  optional: boolean;
  list: boolean;
  isId: boolean;
  hasDefault: boolean;
  /** For a relation field that owns the foreign key: the local fields and the referenced fields. */
  relation?: { fields: string[]; references: string[] };
};

export type SchemaModel = { name: string; fields: SchemaField[]; compoundId?: string[] };

export type ParsedSchema = { models: SchemaModel[]; enums: Map<string, string[]> };

const blockPattern = /^(model|enum)\s+(\w+)\s*\{([^}]*)\}/gm;

function stripComments(source: string): string {
  return source.replace(/\/\/.*$/gm, "");
}

function list(attribute: string, key: string): string[] {
  const match = new RegExp(`${key}\\s*:\\s*\\[([^\\]]*)\\]`).exec(attribute);
  return match?.[1]
    ? match[1]
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

export function parsePrismaSchema(source: string): ParsedSchema {
  const models: SchemaModel[] = [];
  const enums = new Map<string, string[]>();
  for (const [, kind, name, body] of stripComments(source).matchAll(blockPattern)) {
    const lines = (body ?? "")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    if (kind === "enum") {
      enums.set(
        name!,
        lines.filter((l) => !l.startsWith("@@")).map((l) => l.split(/\s+/)[0]!),
      );
      continue;
    }
    const model: SchemaModel = { name: name!, fields: [] };
    for (const line of lines) {
      const compoundId = /^@@id\(\s*(?:fields\s*:\s*)?\[([^\]]*)\]/.exec(line)?.[1];
      if (compoundId) model.compoundId = compoundId.split(",").map((s) => s.trim());
      if (line.startsWith("@@")) continue;
      const match = /^(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/.exec(line);
      if (!match) throw new Error(`model ${name}: cannot read field line "${line}"`);
      const [, fieldName, type, listMark, optionalMark, attributes = ""] = match;
      const relation = /@relation\(([^)]*)\)/.exec(attributes)?.[1];
      const fields = relation ? list(relation, "fields") : [];
      model.fields.push({
        name: fieldName!,
        type: type!,
        optional: Boolean(optionalMark),
        list: Boolean(listMark),
        isId: /@id\b/.test(attributes),
        hasDefault: /@default\(|@updatedAt\b/.test(attributes),
        relation: fields.length > 0 ? { fields, references: list(relation!, "references") } : undefined,
      });
    }
    models.push(model);
  }
  return { models, enums };
}
