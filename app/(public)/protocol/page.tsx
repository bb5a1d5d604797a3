import type { Metadata } from "next";
import { ProtocolView } from "@/components/protocol/protocol-view";
import { currentProtocol } from "@/lib/protocol";
import { publishedProtocol } from "@/lib/protocol/calibrations";

export const metadata: Metadata = { title: "Protocol" };

export default function ProtocolPage() {
  return <ProtocolView protocol={publishedProtocol(currentProtocol())} />;
}
