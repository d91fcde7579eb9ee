package dev.punctual.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SamplesTest {
    @Test
    void percentilesAreNearestRank() {
        Samples s = new Samples();
        for (int i = 1000; i >= 1; i--) {
            s.add(i);
        }
        Samples.Summary sum = s.summary();
        assertThat(sum.count()).isEqualTo(1000);
        assertThat(sum.meanNanos()).isEqualTo(500.5);
        assertThat(sum.p50Nanos()).isEqualTo(500);
        assertThat(sum.p95Nanos()).isEqualTo(950);
        assertThat(sum.p99Nanos()).isEqualTo(990);
        assertThat(sum.maxNanos()).isEqualTo(1000);
    }

    @Test
    void oneSampleIsEveryPercentile() {
        Samples s = new Samples();
        s.add(7);
        assertThat(s.summary()).isEqualTo(new Samples.Summary(1, 7.0, 7, 7, 7, 7));
    }

    @Test
    void mergeKeepsEverySample() {
        Samples a = new Samples();
        Samples b = new Samples();
        for (int i = 0; i < 300; i++) {
            a.add(1);
            b.add(3);
        }
        a.merge(b);
        assertThat(a.size()).isEqualTo(600);
        assertThat(a.summary().meanNanos()).isEqualTo(2.0);
    }
}
