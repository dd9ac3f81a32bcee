/* placeholder until the driver lands */
int main(void) { return 1; }
