package dev.punctual.core.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RunningLimitsTest {
    @Test
    void anOwnersOwnLimitIsOverTheDeploymentsAndZeroMeansNone() {
        RunningLimits l =
                new RunningLimits(10, RunningLimits.parseTenants("team-a=2; arn:aws:iam::1:user/x=y=5 ;free=0"));
        assertThat(l.limitFor("team-a")).isEqualTo(2);
        assertThat(l.limitFor("arn:aws:iam::1:user/x=y"))
                .as("the last = separates the number")
                .isEqualTo(5);
        assertThat(l.limitFor("free")).isZero();
        assertThat(l.limitFor("anyone")).isEqualTo(10);
        assertThat(l.any()).isTrue();
        assertThat(RunningLimits.NONE.any()).isFalse();
        assertThat(new RunningLimits(0, Map.of("x", 0)).any()).isFalse();
        assertThat(RunningLimits.parseTenants(" ")).isEmpty();
    }

    @Test
    void whatIsNotALimitIsRefusedNamingIt() {
        assertThatThrownBy(() -> RunningLimits.parseTenants("team-a"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'team-a' is not owner=N");
        assertThatThrownBy(() -> RunningLimits.parseTenants("team-a=many"))
                .hasMessageContaining("N must be a whole number");
        assertThatThrownBy(() -> new RunningLimits(RunningLimits.MAX + 1, Map.of()))
                .hasMessageContaining("between 0 (none) and 100");
        assertThatThrownBy(() -> new RunningLimits(0, Map.of("t", -1))).hasMessageContaining("running limit of t");
    }
}
