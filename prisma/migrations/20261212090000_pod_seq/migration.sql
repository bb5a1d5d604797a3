-- AlterTable
ALTER TABLE "Evaluation" ADD COLUMN     "podSeq" INTEGER NOT NULL DEFAULT 0;
