/** The health resource every service answers at `GET /api/health`. */

/** Body of a health response. */
export interface HealthBody {
  /** Always `ok` when the process can answer at all. */
  status: "ok";
  /** The constant name of the service. */
  service: string;
}

/** Path of the health endpoint, identical in every service. */
export const HEALTH_PATH = "/api/health";

/** Builds the health response of `service`. It touches no database and needs no secret, by design. */
export function healthResponse(service: string): Response {
  const body: HealthBody = { status: "ok", service };
  return new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

/** True when `request` asks for the health endpoint. */
export function isHealthRequest(request: Request): boolean {
  return (request.method === "GET" || request.method === "HEAD") &&
    new URL(request.url).pathname === HEALTH_PATH;
}
