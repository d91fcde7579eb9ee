package dev.punctual.cli;

import picocli.CommandLine;

/**
 * What the command's exit code means. Scripts can tell "fix the request" from "not there", "changed meanwhile",
 * "not allowed" and "try again later".
 */
final class Exit {
    private Exit() {}

    static final int OK = 0;
    /** The API refused the request as invalid (400, 422, …): the message names the field. */
    static final int REFUSED = 1;
    /** The command line or the profile file is wrong (picocli's own code for usage errors). */
    static final int USAGE = 2;
    /** The job, run or binary does not exist (404). */
    static final int NOT_FOUND = 3;
    /** The job is not in a state that allows it, or changed meanwhile (409, 412). */
    static final int CONFLICT = 4;
    /** No token, or one the API does not accept (401, 403). */
    static final int DENIED = 5;
    /** The API could not be reached, failed (5xx) or asked to slow down (429): trying again later may work. */
    static final int UNAVAILABLE = 6;

    static int of(ApiException e) {
        return switch (e.status) {
            case 0, 429, 500, 502, 503, 504 -> UNAVAILABLE;
            case 401, 403 -> DENIED;
            case 404 -> NOT_FOUND;
            case 409, 412, 428 -> CONFLICT;
            default -> e.status >= 500 ? UNAVAILABLE : REFUSED;
        };
    }

    /** Prints what went wrong on stderr, one line (the problem as JSON too with {@code -o json}). */
    static CommandLine.IExecutionExceptionHandler handler(Cli cli) {
        return (e, cmd, parsed) -> {
            if (e instanceof ApiException api) {
                cli.err.println("error: " + api.getMessage());
                if (cli.json() && api.problem != null) {
                    cli.err.println(api.problem.toString());
                }
                return of(api);
            }
            if (e instanceof Cli.UsageException) {
                cli.err.println("error: " + e.getMessage());
                return USAGE;
            }
            throw e;
        };
    }
}
