-- CreateTable
CREATE TABLE "KeptEvaluationPage" (
    "evaluationId" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "headers" JSONB NOT NULL,
    "body" BYTEA NOT NULL,
    "keptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KeptEvaluationPage_pkey" PRIMARY KEY ("evaluationId")
);

-- AddForeignKey
ALTER TABLE "KeptEvaluationPage" ADD CONSTRAINT "KeptEvaluationPage_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
