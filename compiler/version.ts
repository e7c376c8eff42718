/** Version of this `awc` build and the repository its releases come from (embedded at build time). */

/** The `awc` version; release builds replace it from the tag (see .github/workflows/release.yml). */
export const AWC_VERSION = "0.1.0";

/** `owner/repo` whose releases `awc upgrade` reads (override with `AWC_RELEASES_REPO`). */
export const AWC_RELEASES_REPO = "switchyard-dev/switchyard";
