package dev.punctual.core.it;

import dev.punctual.core.Punctual;
import dev.punctual.core.time.SettableClock;
import org.junit.jupiter.api.BeforeEach;

/** A fresh scheduler for each test ({@link Fixture#clockedStack}): its clock, and a binary of {@link Fixture#OWNER}'s. */
abstract class ClockedStackTest {
    SettableClock clock;
    Punctual p;
    String binaryId;

    @BeforeEach
    void setUpStack() {
        Fixture.ClockedStack s = Fixture.clockedStack();
        clock = s.clock();
        p = s.p();
        binaryId = s.binaryId();
    }
}
