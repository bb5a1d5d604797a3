import { randomBytes, randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ParsedSchema, parsePrismaSchema, type SchemaModel } from "../ops/prisma-schema-models";
import { createMigratedTestDatabase, type TestDatabase } from "../ops/test-database";
import { createPrismaClient, type PrismaClient } from "./client";
import { defaultSchemaFile } from "./schema-diff";

type Row = Record<string, unknown>;
type Delegate = {
  count(): Promise<number>;
  findMany(args: { take: number }): Promise<Row[]>;
  create(args: { data: Row }): Promise<Row>;
  findFirst(args: { where: Row }): Promise<Row | null>;
};

const scalarTypes = new Set(["String", "Int", "BigInt", "Float", "Decimal", "Boolean", "DateTime", "Json", "Bytes"]);

let database: TestDatabase;
let prisma: PrismaClient;
let schema: ParsedSchema;

beforeAll(async () => {
  schema = parsePrismaSchema(await readFile(defaultSchemaFile, "utf8"));
  database = await createMigratedTestDatabase();
  prisma = createPrismaClient(database.url);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

function delegateOf(model: string): Delegate {
  const delegate = (prisma as unknown as Record<string, Delegate | undefined>)[
    model[0]!.toLowerCase() + model.slice(1)
  ];
  if (!delegate) throw new Error(`the generated client has no delegate for model ${model} (run npm run db:generate)`);
  return delegate;
}

function sampleValue(type: string): unknown {
  switch (type) {
    case "String":
      return `probe-${randomBytes(6).toString("hex")}`;
    case "Int":
      return randomInt(1, 1_000_000);
    case "BigInt":
      return BigInt(randomInt(1, 1_000_000));
    case "Float":
      return 1.5;
    case "Decimal":
      return "1.5";
    case "Boolean":
      return true;
    case "DateTime":
      return new Date(Math.floor(Date.now() / 1000) * 1000);
    case "Json":
      return { probe: [1, "two", null] };
    case "Bytes":
      return new Uint8Array([0, 1, 254, 255]);
    default: {
      const values = schema.enums.get(type);
      if (!values?.[0]) throw new Error(`no sample value for field type ${type}`);
      return values[0];
    }
  }
}

/** Creates a row with every required field set, creating the rows its required relations point at first. */
async function createRow(model: SchemaModel, depth = 0): Promise<{ data: Row; created: Row }> {
  if (depth > 8) throw new Error(`required relations nest too deep at ${model.name}`);
  const data: Row = {};
  for (const field of model.fields) {
    if (!field.relation || field.optional) continue;
    const parentModel = schema.models.find((m) => m.name === field.type)!;
    const { created: parent } = await createRow(parentModel, depth + 1);
    field.relation.fields.forEach((local, i) => {
      data[local] = parent[field.relation!.references[i]!];
    });
  }
  for (const field of model.fields) {
    if (field.name in data || field.optional || field.list || field.hasDefault) continue;
    if (!scalarTypes.has(field.type) && !schema.enums.has(field.type)) continue;
    data[field.name] = sampleValue(field.type);
  }
  const created = await delegateOf(model.name).create({ data });
  return { data, created };
}

function normalise(value: unknown): unknown {
  if (value instanceof Uint8Array) return [...value];
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && value !== null && "toFixed" in value) return String(value);
  return value;
}

describe("the migrated database serves every model in prisma/schema.prisma", () => {
  it("finds the models to check", () => {
    expect(schema.models.length).toBeGreaterThan(0);
  });

  // Read at collection time so each model is its own named test.
  it.each(parsePrismaSchema(readFileSync(defaultSchemaFile, "utf8")).models.map((m) => [m.name]))(
    "%s: count, findMany, and a create read back field by field",
    async (name) => {
      const model = schema.models.find((m) => m.name === name)!;
      const delegate = delegateOf(name);
      const before = await delegate.count();
      expect(await delegate.findMany({ take: 1 })).toHaveLength(before > 0 ? 1 : 0);

      const { data, created } = await createRow(model);
      const columns = model.fields.filter((f) => !f.list && (scalarTypes.has(f.type) || schema.enums.has(f.type)));
      for (const column of columns) expect(created, `${name}.${column.name}`).toHaveProperty(column.name);

      const idFields = model.compoundId ?? model.fields.filter((f) => f.isId).map((f) => f.name);
      expect(idFields.length, `${name} has an id`).toBeGreaterThan(0);
      const where = Object.fromEntries(idFields.map((f) => [f, created[f]]));
      const read = await delegate.findFirst({ where });
      expect(read).not.toBeNull();
      for (const [field, value] of Object.entries(data)) {
        expect(normalise(read![field]), `${name}.${field}`).toEqual(normalise(value));
      }
      expect(await delegate.count()).toBeGreaterThan(before);
    },
  );
});
