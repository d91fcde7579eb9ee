package dev.punctual.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {
    private static JsonNode json(String s) throws Exception {
        return ApiClient.JSON.readTree(s);
    }

    @Test
    void columnsAreAlignedAbsentValuesShowAsADashAndControlCharactersCannotRewriteTheTerminal() throws Exception {
        StringWriter out = new StringWriter();
        new Table()
                .field("ID", "id")
                .field("NAME", "name")
                .field("EXIT", "exitCode")
                .print(
                        new PrintWriter(out, true),
                        List.of(
                                json("{\"id\":\"job_1\",\"name\":\"nightly\",\"exitCode\":0}"),
                                json("{\"id\":\"job_22\",\"name\":\"evil\\u001b[2Jname\"}")));
        assertThat(out.toString().lines())
                .containsExactly("ID      NAME          EXIT", "job_1   nightly       0", "job_22  evil?[2Jname  -");
    }

    @Test
    void schedulesAreShownInAFewWords() throws Exception {
        assertThat(Jobs.schedule(
                        json("{\"type\":\"cron\",\"expression\":\"0 6 * * *\",\"timezone\":\"Europe/Paris\"}")))
                .isEqualTo("cron 0 6 * * * Europe/Paris");
        assertThat(Jobs.schedule(json("{\"type\":\"interval\",\"every\":\"PT10M\"}")))
                .isEqualTo("every PT10M");
        assertThat(Jobs.schedule(json("{\"type\":\"once\",\"at\":\"2030-01-01T00:00:00Z\"}")))
                .isEqualTo("once 2030-01-01T00:00:00Z");
        assertThat(Jobs.schedule(json("{\"type\":\"now\"}"))).isEqualTo("now");
    }

    @Test
    void exitCodesFollowTheApisStatus() {
        assertThat(Exit.of(new ApiException(422, null, "x"))).isEqualTo(Exit.REFUSED);
        assertThat(Exit.of(new ApiException(404, null, "x"))).isEqualTo(Exit.NOT_FOUND);
        assertThat(Exit.of(new ApiException(409, null, "x"))).isEqualTo(Exit.CONFLICT);
        assertThat(Exit.of(new ApiException(412, null, "x"))).isEqualTo(Exit.CONFLICT);
        assertThat(Exit.of(new ApiException(401, null, "x"))).isEqualTo(Exit.DENIED);
        assertThat(Exit.of(new ApiException(429, null, "x"))).isEqualTo(Exit.UNAVAILABLE);
        assertThat(Exit.of(new ApiException(0, null, "x"))).isEqualTo(Exit.UNAVAILABLE);
        assertThat(Exit.of(new ApiException(503, null, "x"))).isEqualTo(Exit.UNAVAILABLE);
    }
}
