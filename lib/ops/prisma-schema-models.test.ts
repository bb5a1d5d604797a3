import { describe, expect, it } from "vitest";
import { parsePrismaSchema } from "./prisma-schema-models";

const schema = `
generator client {
  provider = "prisma-client"
}
/// an enum
enum Colour {
  red
  green // a comment
}
model Parent {
  id       String  @id @default(cuid())
  name     String  @unique
  colour   Colour
  children Child[]
}
model Child {
  tenant   String
  n        Int
  parentId String?
  parent   Parent? @relation(fields: [parentId], references: [id], onDelete: Cascade)
  updated  DateTime @updatedAt
  @@id([tenant, n])
  @@index([parentId])
}
`;

describe("parsePrismaSchema", () => {
  it("reads models, fields, relations, compound ids and enums", () => {
    const parsed = parsePrismaSchema(schema);
    expect(parsed.enums.get("Colour")).toEqual(["red", "green"]);
    expect(parsed.models.map((m) => m.name)).toEqual(["Parent", "Child"]);
    const [parent, child] = parsed.models;
    expect(parent!.fields.find((f) => f.name === "id")).toMatchObject({ isId: true, hasDefault: true });
    expect(parent!.fields.find((f) => f.name === "children")).toMatchObject({ type: "Child", list: true });
    expect(child!.compoundId).toEqual(["tenant", "n"]);
    expect(child!.fields.find((f) => f.name === "parent")).toMatchObject({
      optional: true,
      relation: { fields: ["parentId"], references: ["id"] },
    });
    expect(child!.fields.find((f) => f.name === "updated")?.hasDefault).toBe(true);
  });

  it("names a field line it cannot read", () => {
    expect(() => parsePrismaSchema("model Bad {\n  ???\n}\n")).toThrow(/model Bad: cannot read field line "\?\?\?"/);
  });
});
