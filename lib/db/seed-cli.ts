import { env } from "../env";
import { createPrismaClient } from "./client";
import { seedDatabase } from "./seed";

const { DATABASE_URL, ADMIN_EMAIL, ADMIN_PASSWORD } = env();
const prisma = createPrismaClient(DATABASE_URL);
await seedDatabase(prisma, { adminEmail: ADMIN_EMAIL });
await prisma.$disconnect();
console.log(`seeded: tasks, protocol versions, operator account ${ADMIN_EMAIL}`);
if (!ADMIN_PASSWORD) console.log("ADMIN_PASSWORD is not set: the operator cannot sign in until it is");
