-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "AccountKind" AS ENUM ('participant', 'study', 'reference', 'admin');

-- CreateEnum
CREATE TYPE "Split" AS ENUM ('dev', 'test');

-- CreateEnum
CREATE TYPE "SolutionKind" AS ENUM ('ngram', 'suffix', 'draft', 'eagle3', 'mtp', 'other');

-- CreateEnum
CREATE TYPE "EngineSource" AS ENUM ('inline', 'repository');

-- CreateEnum
CREATE TYPE "EvaluationStatus" AS ENUM ('queued', 'fetching', 'running', 'checking', 'scored', 'failed', 'void', 'cancelled');

-- CreateEnum
CREATE TYPE "LedgerKind" AS ENUM ('charge', 'refund');

-- CreateTable
CREATE TABLE "ProtocolVersion" (
    "version" TEXT NOT NULL,
    "document" JSONB NOT NULL,
    "publishedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProtocolVersion_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "Task" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "protocolVersion" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Account" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "AccountKind" NOT NULL DEFAULT 'participant',
    "email" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabledAt" TIMESTAMP(3),

    CONSTRAINT "Account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "label" TEXT,
    "issuedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Submission" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "split" "Split" NOT NULL,
    "protocolVersion" TEXT NOT NULL,
    "profile" TEXT NOT NULL DEFAULT 'full',
    "speculatorUri" TEXT,
    "speculatorRevision" TEXT,
    "engineSource" "EngineSource" NOT NULL,
    "engineArchive" BYTEA,
    "engineSha256" TEXT,
    "engineUri" TEXT,
    "engineRevision" TEXT,
    "engineSubdir" TEXT,
    "method" TEXT,
    "kind" "SolutionKind" NOT NULL,
    "referenceKey" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Submission_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Evaluation" (
    "id" TEXT NOT NULL,
    "submissionId" TEXT NOT NULL,
    "status" "EvaluationStatus" NOT NULL DEFAULT 'queued',
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "phase" TEXT,
    "seed" INTEGER NOT NULL,
    "reason" TEXT,
    "specscore" DOUBLE PRECISION,
    "result" JSONB,
    "gpuSeconds" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "podId" TEXT,
    "logTail" TEXT,
    "engineSha256" TEXT,
    "speculatorCommit" TEXT,
    "refunded" BOOLEAN NOT NULL DEFAULT false,
    "queuedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Evaluation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvaluationPhase" (
    "id" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "engine" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "EvaluationPhase_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvaluationPass" (
    "id" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "workload" TEXT NOT NULL,
    "pass" INTEGER NOT NULL,
    "speed" DOUBLE PRECISION NOT NULL,
    "requests" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "outputTokens" INTEGER NOT NULL,
    "summary" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EvaluationPass_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GateResult" (
    "id" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "check" TEXT NOT NULL,
    "measured" TEXT NOT NULL,
    "limit" TEXT NOT NULL,
    "passed" BOOLEAN NOT NULL,
    "detail" JSONB,

    CONSTRAINT "GateResult_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BudgetLedger" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "split" "Split" NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "kind" "LedgerKind" NOT NULL,
    "amount" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BudgetLedger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvaluationEvent" (
    "id" BIGSERIAL NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EvaluationEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Account_name_key" ON "Account"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Account_email_key" ON "Account"("email");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_hash_key" ON "ApiToken"("hash");

-- CreateIndex
CREATE INDEX "ApiToken_accountId_idx" ON "ApiToken"("accountId");

-- CreateIndex
CREATE INDEX "Submission_accountId_taskId_split_idx" ON "Submission"("accountId", "taskId", "split");

-- CreateIndex
CREATE INDEX "Submission_taskId_createdAt_idx" ON "Submission"("taskId", "createdAt");

-- CreateIndex
CREATE INDEX "Evaluation_status_queuedAt_idx" ON "Evaluation"("status", "queuedAt");

-- CreateIndex
CREATE INDEX "Evaluation_submissionId_idx" ON "Evaluation"("submissionId");

-- CreateIndex
CREATE UNIQUE INDEX "EvaluationPhase_evaluationId_name_key" ON "EvaluationPhase"("evaluationId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "EvaluationPass_evaluationId_engine_workload_pass_key" ON "EvaluationPass"("evaluationId", "engine", "workload", "pass");

-- CreateIndex
CREATE UNIQUE INDEX "GateResult_evaluationId_check_key" ON "GateResult"("evaluationId", "check");

-- CreateIndex
CREATE INDEX "BudgetLedger_accountId_taskId_split_idx" ON "BudgetLedger"("accountId", "taskId", "split");

-- CreateIndex
CREATE UNIQUE INDEX "BudgetLedger_evaluationId_kind_key" ON "BudgetLedger"("evaluationId", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "EvaluationEvent_evaluationId_seq_key" ON "EvaluationEvent"("evaluationId", "seq");

-- AddForeignKey
ALTER TABLE "Task" ADD CONSTRAINT "Task_protocolVersion_fkey" FOREIGN KEY ("protocolVersion") REFERENCES "ProtocolVersion"("version") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_issuedById_fkey" FOREIGN KEY ("issuedById") REFERENCES "Account"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Submission" ADD CONSTRAINT "Submission_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Submission" ADD CONSTRAINT "Submission_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Submission" ADD CONSTRAINT "Submission_protocolVersion_fkey" FOREIGN KEY ("protocolVersion") REFERENCES "ProtocolVersion"("version") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Evaluation" ADD CONSTRAINT "Evaluation_submissionId_fkey" FOREIGN KEY ("submissionId") REFERENCES "Submission"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationPhase" ADD CONSTRAINT "EvaluationPhase_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationPass" ADD CONSTRAINT "EvaluationPass_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GateResult" ADD CONSTRAINT "GateResult_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BudgetLedger" ADD CONSTRAINT "BudgetLedger_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BudgetLedger" ADD CONSTRAINT "BudgetLedger_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BudgetLedger" ADD CONSTRAINT "BudgetLedger_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationEvent" ADD CONSTRAINT "EvaluationEvent_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
