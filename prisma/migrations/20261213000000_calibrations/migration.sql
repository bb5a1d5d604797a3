-- CreateEnum
CREATE TYPE "CalibrationStatus" AS ENUM ('running', 'reported');

-- CreateTable
CREATE TABLE "Calibration" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "profile" TEXT NOT NULL,
    "split" "Split" NOT NULL,
    "aaRuns" INTEGER NOT NULL,
    "runtime" TEXT NOT NULL,
    "status" "CalibrationStatus" NOT NULL DEFAULT 'running',
    "report" JSONB,
    "failure" TEXT,
    "startedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "reportedAt" TIMESTAMP(3),

    CONSTRAINT "Calibration_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CalibrationRun" (
    "id" TEXT NOT NULL,
    "calibrationId" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "referenceKey" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "CalibrationRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Calibration_createdAt_idx" ON "Calibration"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "CalibrationRun_evaluationId_key" ON "CalibrationRun"("evaluationId");

-- CreateIndex
CREATE INDEX "CalibrationRun_calibrationId_idx" ON "CalibrationRun"("calibrationId");

-- AddForeignKey
ALTER TABLE "Calibration" ADD CONSTRAINT "Calibration_startedById_fkey" FOREIGN KEY ("startedById") REFERENCES "Account"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CalibrationRun" ADD CONSTRAINT "CalibrationRun_calibrationId_fkey" FOREIGN KEY ("calibrationId") REFERENCES "Calibration"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CalibrationRun" ADD CONSTRAINT "CalibrationRun_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
