import { createPrismaClient } from "@/lib/db/client";
import { env } from "@/lib/env";
import { seedDemoBoard } from "./demo-board";

/** `npx tsx lib/board/demo/seed-demo-cli.ts`: writes the demo boards into DATABASE_URL's arena (development only). */
const prisma = createPrismaClient(env().DATABASE_URL);
try {
  const ids = await seedDemoBoard(prisma);
  console.log(`demo boards: ${ids.length} evaluations`);
} finally {
  await prisma.$disconnect();
}
