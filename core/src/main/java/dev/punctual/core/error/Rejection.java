package dev.punctual.core.error;

/**
 * Why a request was refused, in the domain's words. Only the HTTP layer turns a kind into a status code; the core
 * never names one.
 */
public enum Rejection {
    /** The request cannot be read as sent: a field missing, of the wrong type, or out of its range. */
    MALFORMED,
    /** Well-formed, but it breaks a rule of the domain (a schedule with no occurrence, a limit above its maximum). */
    INVALID,
    /** Larger than the request may be (a job's args, env and secrets together). */
    TOO_LARGE,
    /** The addressed resource's current state does not allow it (retrying a run that is not DEAD). */
    CONFLICT,
    /** A precondition the request carried (If-Match) does not hold: the resource changed since it was read. */
    PRECONDITION_FAILED,
    /** The request must carry a precondition (If-Match) and does not. */
    PRECONDITION_REQUIRED
}
