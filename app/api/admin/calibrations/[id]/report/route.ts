import { getCalibrationReport } from "@/lib/admin/list-calibrations";
import { AppError } from "@/lib/http/app-error";
import { withAdmin } from "@/lib/http/with-admin";

/** A calibration's report as a file, for the operators to commit beside the protocol values it is evidence for. */
export const GET = withAdmin<{ id: string }>(async (_request, { params }) => {
  const report = await getCalibrationReport(params.id);
  if (!report) throw new AppError({ code: "conflict", message: `calibration ${params.id} has no report yet` });
  return new Response(`${JSON.stringify(report, null, 1)}\n`, {
    headers: {
      "content-type": "application/json",
      "content-disposition": `attachment; filename="calibration-${report.task}-${report.profile}-${params.id}.json"`,
    },
  });
});
