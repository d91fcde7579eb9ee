package dev.punctual.bench.compare.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunCommandTest {
    private final RunCommand command =
            new RunCommand("/tmp/a dir/stamp", List.of("run-000001", "1767225600000", "/tmp/a dir/starts ü.txt"));

    @Test
    void taskDataRoundTrips() {
        byte[] data = RunCommand.SERIALIZER.serialize(command);
        assertThat(RunCommand.SERIALIZER.deserialize(RunCommand.class, data)).isEqualTo(command);
    }

    @Test
    void emptyArgumentsSurvive() {
        RunCommand withEmpty = new RunCommand("/bin/true", List.of("", "x", ""));
        assertThat(RunCommand.decode(withEmpty.encode())).isEqualTo(withEmpty);
        RunCommand bare = new RunCommand("/bin/true", List.of());
        assertThat(RunCommand.decode(bare.encode())).isEqualTo(bare);
    }

    @Test
    void jobDataRoundTripsAsStrings() {
        Map<String, String> data = command.toJobData();
        assertThat(data).containsEntry("binary", "/tmp/a dir/stamp").containsEntry("argc", "3");
        assertThat(RunCommand.fromJobData(data)).isEqualTo(command);
    }

    @Test
    void nulCannotBeCarried() {
        assertThatThrownBy(() -> new RunCommand("/bin/true", List.of("a\0b")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void serializerKnowsOnlyRunCommand() {
        assertThat(RunCommand.SERIALIZER.serialize(null)).isNull();
        assertThat(RunCommand.SERIALIZER.deserialize(RunCommand.class, null)).isNull();
        assertThatThrownBy(() -> RunCommand.SERIALIZER.deserialize(String.class, new byte[] {'x'}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNonZeroExitFailsTheRun() throws Exception {
        new RunCommand("/bin/true", List.of("ok")).runOrFail();
        assertThatThrownBy(() -> new RunCommand("/bin/false", List.of("run-1")).runOrFail())
                .isInstanceOf(RunCommand.Failed.class)
                .hasMessageContaining("run-1")
                .hasMessageContaining("exited 1");
    }
}
