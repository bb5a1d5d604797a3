import { currentProtocol, PROTOCOLS } from "../protocol";
import type { PrismaClient } from "./generated/client";

export interface SeedOptions {
  adminEmail: string;
}

/** Idempotent: the published protocol versions, the tasks of the version in force, the operator and reference accounts. */
export async function seedDatabase(prisma: PrismaClient, options: SeedOptions): Promise<void> {
  for (const protocol of PROTOCOLS) {
    await prisma.protocolVersion.upsert({
      where: { version: protocol.version },
      update: {},
      create: { version: protocol.version, document: JSON.parse(JSON.stringify(protocol)) },
    });
  }
  const protocol = currentProtocol();
  for (const task of Object.values(protocol.tasks)) {
    await prisma.task.upsert({
      where: { id: task.id },
      update: { name: task.name, protocolVersion: protocol.version },
      create: { id: task.id, name: task.name, protocolVersion: protocol.version },
    });
  }
  await prisma.account.upsert({
    where: { name: "operators" },
    update: { email: options.adminEmail, kind: "admin" },
    create: { name: "operators", kind: "admin", email: options.adminEmail },
  });
  await prisma.account.upsert({
    where: { name: "reference" },
    update: {},
    create: { name: "reference", kind: "reference" },
  });
}
