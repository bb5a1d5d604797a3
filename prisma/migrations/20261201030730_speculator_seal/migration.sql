-- AlterTable
ALTER TABLE "Evaluation" ADD COLUMN     "speculatorFiles" JSONB,
ADD COLUMN     "speculatorSha256" TEXT;
