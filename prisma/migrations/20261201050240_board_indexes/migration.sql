-- CreateIndex
CREATE INDEX "Evaluation_status_updatedAt_idx" ON "Evaluation"("status", "updatedAt");

-- CreateIndex
CREATE INDEX "Evaluation_queuedAt_idx" ON "Evaluation"("queuedAt");
